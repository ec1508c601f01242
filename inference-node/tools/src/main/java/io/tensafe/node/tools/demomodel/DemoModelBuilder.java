package io.tensafe.node.tools.demomodel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.io.FileTrees;
import io.tensafe.tgsp.safetensors.DType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Builds {@link DemoModel}'s folder: reads the corpus, writes the folder's config, tokenizer and
 * chat template (ModelGenerator's), tokenizes the chat examples in Java, runs {@code train_demo.py}
 * (packaged in this jar) in Debian's PyTorch, then loads the result in the node's decoder and
 * prints its answers. A folder already built by the same recipe (script, data, shape, steps and
 * seed) is left as it is.
 */
public final class DemoModelBuilder {
  /** Raise when what Java writes for training changes (corpus range, dialogues, rendering). */
  static final int RECIPE_VERSION = 2;

  static final String SCRIPT = "io/tensafe/node/tools/demomodel/train_demo.py";

  /** Debian's OpenBLAS (libopenblas0-pthread): the reference BLAS is about 8 times slower. */
  static final Path OPENBLAS = Path.of("/usr/lib/x86_64-linux-gnu/openblas-pthread");

  static final String SAMPLE_QUESTION = "How do I apply for a mortgage?";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param out the model folder
   * @param seed training's seed: the same seed writes the same bytes on the same machine kind
   * @param bible Debian's {@code bible} program
   * @param python Debian's Python with {@code python3-torch}
   * @param threads training threads (the recipe fixes 2)
   */
  public record Options(
      Path out, long seed, Path bible, Path python, int baseSteps, int adapterSteps, int threads) {}

  private DemoModelBuilder() {}

  /** Builds the folder unless it is up to date; {@code log} receives progress lines. */
  public static void build(Options o, Consumer<String> log) throws IOException {
    long started = System.nanoTime();
    byte[] script = script();
    String recipe = recipe(o, script);
    if (upToDate(o.out(), recipe)) {
      // Newer than the sources again: the shell's check (demo.sh) skips the tool next time.
      Files.setLastModifiedTime(
          o.out().resolve(DemoModel.STAMP),
          java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
      log.accept(o.out() + " already holds the demo model of this recipe and seed; nothing to do");
      return;
    }
    Files.createDirectories(o.out());
    Files.deleteIfExists(o.out().resolve(DemoModel.STAMP));
    List<KjvVerses.Verse> verses = KjvVerses.read(o.bible());
    ModelGenerator.writeFolderFiles(
        DemoModel.SHAPE,
        DType.BF16,
        ModelGenerator.Arch.QWEN3,
        ModelGenerator.TINY_MOE,
        "qwen3-demo, trained by ./tensafe model demo (seed " + o.seed() + ")",
        o.out());
    Path work = Files.createTempDirectory("tensafe-demo-model");
    try {
      long baseTokens;
      long adapterTokens;
      try (QwenTokenizer tokenizer = QwenTokenizer.fromFile(o.out().resolve("tokenizer.json"))) {
        ChatExamples chat = new ChatExamples(ChatFormat.read(o.out()), tokenizer);
        List<ChatExamples.Example> base = new java.util.ArrayList<>(chat.verses(verses));
        base.addAll(chat.dialoguesAnsweredByVerses(BankingDialogues.all(), verses));
        baseTokens = ChatExamples.write(base, work.resolve("base.bin"));
        adapterTokens =
            ChatExamples.write(chat.dialogues(BankingDialogues.all()), work.resolve("adapter.bin"));
      } catch (io.tensafe.chat.template.ChatTemplateException e) {
        throw new IOException("the chat template refused a training example", e);
      }
      log.accept(
          String.format(
              Locale.ROOT,
              "tokenized %d verses and the banking words (%,d tokens) and %d banking dialogues"
                  + " (%,d tokens) in %.1f s",
              verses.size(),
              baseTokens,
              BankingDialogues.all().size(),
              adapterTokens,
              (System.nanoTime() - started) / 1e9));
      Files.write(work.resolve("train_demo.py"), script);
      JsonNode metrics = train(o, work, log);
      Files.write(o.out().resolve(DemoModel.WORDS), words(verses));
      long modelBytes = Files.size(o.out().resolve("model.safetensors"));
      long adapterBytes =
          Files.size(
              o.out().resolve(DemoModel.ADAPTER_FOLDER).resolve("adapter_model.safetensors"));
      ObjectNode stamp = JSON.createObjectNode();
      stamp.put("recipe", recipe);
      stamp.put("seed", o.seed());
      stamp.put("corpus", "bible-kjv-text (King James Bible, public domain): " + KjvVerses.RANGE);
      stamp.setAll((ObjectNode) metrics);
      stamp.put("model_bytes", modelBytes);
      stamp.put("adapter_bytes", adapterBytes);
      sample(o.out(), log);
      double seconds = (System.nanoTime() - started) / 1e9;
      stamp.put("seconds", Math.round(seconds * 10) / 10.0);
      Files.writeString(
          o.out().resolve(DemoModel.STAMP),
          JSON.writerWithDefaultPrettyPrinter().writeValueAsString(stamp) + "\n");
      log.accept(
          String.format(
              Locale.ROOT,
              "built %s in %.0f s: model.safetensors %.1f MiB, %s/adapter_model.safetensors %.1f"
                  + " KiB; final losses: base %s, adapter %s",
              o.out(),
              seconds,
              modelBytes / 1048576.0,
              DemoModel.ADAPTER_FOLDER,
              adapterBytes / 1024.0,
              metrics.path("base_loss").asText(),
              metrics.path("adapter_loss").asText()));
    } finally {
      FileTrees.deleteRecursively(work);
    }
  }

  /** Runs the training script; returns the metrics of its last line (a JSON object). */
  private static JsonNode train(Options o, Path work, Consumer<String> log) throws IOException {
    String config =
        String.format(
            Locale.ROOT,
            "{\"vocab\": %d, \"hidden\": %d, \"intermediate\": %d, \"layers\": %d, \"heads\": %d,"
                + " \"kv_heads\": %d, \"head_dim\": %d, \"eps\": 1e-6, \"rope_theta\": 1000000.0}",
            DemoModel.SHAPE.vocabSize(),
            DemoModel.SHAPE.hiddenSize(),
            DemoModel.SHAPE.intermediateSize(),
            DemoModel.SHAPE.layers(),
            DemoModel.SHAPE.attentionHeads(),
            DemoModel.SHAPE.keyValueHeads(),
            DemoModel.SHAPE.headDim());
    ProcessBuilder pb =
        new ProcessBuilder(
                o.python().toString(),
                "-u",
                work.resolve("train_demo.py").toString(),
                "--data",
                work.toString(),
                "--out",
                o.out().toString(),
                "--config",
                config,
                "--seed",
                Long.toString(o.seed()),
                "--threads",
                Integer.toString(o.threads()),
                "--base-steps",
                Integer.toString(o.baseSteps()),
                "--adapter-steps",
                Integer.toString(o.adapterSteps()),
                "--base-model",
                DemoModel.BASE_MODEL)
            .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    String threads = Integer.toString(o.threads());
    env.put("OMP_NUM_THREADS", threads);
    env.put("OPENBLAS_NUM_THREADS", threads);
    if (Files.isDirectory(OPENBLAS)) {
      String path = env.get("LD_LIBRARY_PATH");
      env.put("LD_LIBRARY_PATH", OPENBLAS + (path == null || path.isEmpty() ? "" : ":" + path));
    }
    Process process = pb.start();
    String last = "";
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        log.accept("  " + line);
        last = line;
      }
    }
    try {
      int code = process.waitFor();
      if (code != 0) {
        throw new IOException("train_demo.py exited with " + code + ": " + last);
      }
    } catch (InterruptedException e) {
      process.destroy();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while training", e);
    }
    JsonNode metrics = JSON.readTree(last);
    if (!(metrics instanceof ObjectNode)) {
      throw new IOException("train_demo.py ended without its metrics line: " + last);
    }
    return metrics;
  }

  /** Loads the folder as the node would and prints the base's and the adapter's answer. */
  private static void sample(Path out, Consumer<String> log) throws IOException {
    try (DemoAnswers answers = DemoAnswers.load(out)) {
      LoraPath lora = new LoraPath(answers.adapter(), LoraPath.Mode.PLAINTEXT, null);
      log.accept("user: " + SAMPLE_QUESTION);
      log.accept("  base model:   " + answers.text(answers.greedy(SAMPLE_QUESTION, null, 32)));
      log.accept("  with adapter: " + answers.text(answers.greedy(SAMPLE_QUESTION, lora, 32)));
    }
  }

  static byte[] words(List<KjvVerses.Verse> verses) {
    TreeSet<String> words = new TreeSet<>();
    for (KjvVerses.Verse v : verses) {
      for (String w : v.text().toLowerCase(Locale.ROOT).split("[^a-z]+")) {
        if (!w.isEmpty()) {
          words.add(w);
        }
      }
    }
    return (String.join("\n", words) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  static byte[] script() throws IOException {
    try (InputStream in = DemoModelBuilder.class.getClassLoader().getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SCRIPT + " is not packaged; rebuild inference-node/tools");
      }
      return in.readAllBytes();
    }
  }

  /** A hash of everything that decides the folder's bytes. */
  static String recipe(Options o, byte[] script) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(script);
      sha.update(
          String.format(
                  Locale.ROOT,
                  "|recipe %d|%s|seed %d|steps %d %d|threads %d",
                  RECIPE_VERSION,
                  DemoModel.SHAPE,
                  o.seed(),
                  o.baseSteps(),
                  o.adapterSteps(),
                  o.threads())
              .getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean upToDate(Path out, String recipe) {
    Path stamp = out.resolve(DemoModel.STAMP);
    try {
      return Files.isRegularFile(stamp)
          && recipe.equals(JSON.readTree(stamp.toFile()).path("recipe").asText())
          && Files.isRegularFile(out.resolve("model.safetensors"))
          && Files.isRegularFile(
              out.resolve(DemoModel.ADAPTER_FOLDER).resolve("adapter_model.safetensors"));
    } catch (IOException e) {
      return false;
    }
  }
}
