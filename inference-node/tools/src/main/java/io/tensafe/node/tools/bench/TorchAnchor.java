package io.tensafe.node.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * PyTorch eager on a model folder, in a child process: {@code torch_anchor.py} (packaged beside
 * this class) run by a Python with Debian's {@code python3-torch}. The same safetensors files, a KV
 * cache, {@code torch.no_grad()}, {@code torch.set_num_threads(threads)}, {@link AnchorProtocol}'s
 * protocol.
 *
 * <p>The child's environment: {@code OMP_WAIT_POLICY} as given (null: removed, libgomp's default of
 * spinning a while after each parallel region; the scripts set PASSIVE for the node's JVM, whose
 * environment the child otherwise inherits), {@code OMP_NUM_THREADS} and {@code
 * OPENBLAS_NUM_THREADS} the thread count, and Debian's OpenBLAS ({@code libopenblas0-pthread})
 * first on {@code LD_LIBRARY_PATH} when installed, as {@code ./tensafe model demo} does (the
 * reference BLAS Debian's torch otherwise links is several times slower in F32).
 *
 * <p>No silent fallback: a Python that cannot {@code import torch} gives an absent {@link Result}
 * with the reason; a run that fails once torch imports is an {@link IOException}.
 */
final class TorchAnchor {
  /** Debian's OpenBLAS (libopenblas0-pthread), as DemoModelBuilder uses it. */
  static final Path OPENBLAS = Path.of("/usr/lib/x86_64-linux-gnu/openblas-pthread");

  /** The Python {@code ./tensafe} uses for PyTorch: Debian's, where python3-torch installs. */
  static final Path DEFAULT_PYTHON = Path.of("/usr/bin/python3");

  private static final String SCRIPT = "torch_anchor.py";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The holdings PyTorch is run with, as the script names them. */
  enum Held {
    BF16,
    F32;

    String scriptName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * What the anchor gave.
   *
   * @param present whether {@code import torch} worked
   * @param detail torch's version when present, else why it is absent
   * @param blas the BLAS the child ran with: "openblas-pthread" or "debian-default"
   * @param ompWaitPolicy the child's {@code OMP_WAIT_POLICY}, or "unset"
   * @param rates per holding, when present
   */
  record Result(
      boolean present,
      String detail,
      String blas,
      String ompWaitPolicy,
      Map<Held, TokenRates> rates) {
    Result {
      rates = rates.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(rates));
    }
  }

  private final Path python;
  private final int threads;
  private final String ompWaitPolicy;

  /**
   * Runs {@code python} with {@code threads ≥ 1} PyTorch threads and {@code OMP_WAIT_POLICY} set to
   * {@code ompWaitPolicy} (null: removed).
   */
  TorchAnchor(Path python, int threads, String ompWaitPolicy) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    this.python = python;
    this.threads = threads;
    this.ompWaitPolicy = ompWaitPolicy;
  }

  /** An absent anchor's result, saying why. */
  Result absent(String reason) {
    return new Result(false, reason, blas(), policyName(), Map.of());
  }

  private String policyName() {
    return ompWaitPolicy == null ? "unset" : ompWaitPolicy;
  }

  /**
   * Torch's version, or empty with {@code reason[0]} set when this Python cannot import it (or is
   * not there).
   */
  java.util.Optional<String> version(String[] reason) throws InterruptedException {
    List<String> out = new ArrayList<>();
    int code;
    try {
      code =
          run(
              List.of(python.toString(), "-c", "import torch; print(torch.__version__)"),
              out,
              true);
    } catch (IOException e) {
      reason[0] = python + " cannot be run: " + e.getMessage();
      return java.util.Optional.empty();
    }
    if (code != 0 || out.isEmpty()) {
      reason[0] =
          python
              + " cannot import torch ("
              + (out.isEmpty() ? "exit " + code : out.getLast())
              + "); install Debian's python3-torch or pass --python";
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(out.getLast().strip());
  }

  /**
   * PyTorch's rates on the folder {@code dir}, BF16 then F32 in one child process (each holding
   * made from the one before, so the child holds one at a time), or absent with the reason.
   *
   * @throws IOException when torch imports but the run fails or prints something unreadable
   */
  Result measure(Path dir, long[] prompt, int decodeTokens)
      throws IOException, InterruptedException {
    String[] reason = new String[1];
    java.util.Optional<String> version = version(reason);
    if (version.isEmpty()) {
      return absent(reason[0]);
    }
    Path script = extractScript();
    try {
      List<String> lines =
          runScript(
              script,
              dir,
              prompt,
              "--dtypes",
              Held.BF16.scriptName() + "," + Held.F32.scriptName(),
              "--decode-tokens",
              Integer.toString(decodeTokens));
      Map<Held, TokenRates> rates = new EnumMap<>(Held.class);
      for (String line : lines) {
        if (!line.startsWith("{\"dtype\"")) {
          continue;
        }
        JsonNode n = JSON.readTree(line);
        List<Long> greedy = new ArrayList<>();
        n.get("greedy").forEach(t -> greedy.add(t.asLong()));
        rates.put(
            Held.valueOf(n.get("dtype").asText().toUpperCase(Locale.ROOT)),
            new TokenRates(
                n.get("prefill_tokens").asInt(),
                n.get("prefill_s").asDouble(),
                n.get("decode_tokens").asInt(),
                n.get("decode_s").asDouble(),
                greedy));
      }
      if (rates.size() != Held.values().length) {
        throw new IOException(
            SCRIPT
                + " printed rates for "
                + rates.keySet()
                + ", not BF16 and F32: "
                + lastLines(lines));
      }
      return new Result(true, version.get(), blas(), policyName(), rates);
    } finally {
      Files.deleteIfExists(script);
    }
  }

  /**
   * Runs {@code script} on the folder {@code dir} with {@code prompt}, this anchor's threads and
   * {@code more} arguments; what it printed, line by line.
   *
   * @throws IOException when it exits non-zero (its last lines in the message)
   */
  private List<String> runScript(Path script, Path dir, long[] prompt, String... more)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                python.toString(),
                "-u",
                script.toString(),
                "--model-dir",
                dir.toString(),
                "--threads",
                Integer.toString(threads),
                "--prompt",
                ids(prompt)));
    command.addAll(List.of(more));
    List<String> lines = new ArrayList<>();
    int code = run(command, lines, false);
    if (code != 0) {
      throw new IOException(
          SCRIPT + " failed (exit " + code + "): " + String.join(" | ", lastLines(lines)));
    }
    return lines;
  }

  /**
   * The F32 logits PyTorch computes on {@code dir} ({@link Held#F32}): row 0 for the prompt's last
   * token, then one row per {@code continuation} token fed after it through the cache; {@code
   * vocab} values each.
   *
   * @throws IOException when the run fails (torch absent included: check {@link #version} first)
   */
  float[][] logits(Path dir, long[] prompt, long[] continuation, int vocab)
      throws IOException, InterruptedException {
    Path script = extractScript();
    Path out = Files.createTempFile("torch-logits", ".f32");
    try {
      runScript(
          script,
          dir,
          prompt,
          "--dtypes",
          Held.F32.scriptName(),
          "--logits-out",
          out.toString(),
          "--continuation",
          ids(continuation));
      byte[] bytes = Files.readAllBytes(out);
      int rows = continuation.length + 1;
      if (bytes.length != (long) rows * vocab * Float.BYTES) {
        throw new IOException(
            SCRIPT
                + " wrote "
                + bytes.length
                + " bytes, not "
                + rows
                + " rows of "
                + vocab
                + " F32");
      }
      ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      float[][] logits = new float[rows][vocab];
      for (float[] row : logits) {
        buffer.asFloatBuffer().get(row);
        buffer.position(buffer.position() + vocab * Float.BYTES);
      }
      return logits;
    } finally {
      Files.deleteIfExists(script);
      Files.deleteIfExists(out);
    }
  }

  /** "openblas-pthread" when Debian's OpenBLAS is installed (and used), else "debian-default". */
  static String blas() {
    return Files.isDirectory(OPENBLAS) ? "openblas-pthread" : "debian-default";
  }

  /**
   * Runs {@code command}; its stdout lines (and stderr's, when {@code merged}) go to {@code out}.
   */
  private int run(List<String> command, List<String> out, boolean merged)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command);
    if (merged) {
      pb.redirectErrorStream(true);
    } else {
      pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    }
    Map<String, String> env = pb.environment();
    if (ompWaitPolicy == null) {
      env.remove("OMP_WAIT_POLICY");
    } else {
      env.put("OMP_WAIT_POLICY", ompWaitPolicy);
    }
    env.put("OMP_NUM_THREADS", Integer.toString(threads));
    env.put("OPENBLAS_NUM_THREADS", Integer.toString(threads));
    if (Files.isDirectory(OPENBLAS)) {
      String path = env.get("LD_LIBRARY_PATH");
      env.put("LD_LIBRARY_PATH", OPENBLAS + (path == null || path.isEmpty() ? "" : ":" + path));
    }
    Process process = pb.start();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.add(line);
      }
    }
    return process.waitFor();
  }

  private static Path extractScript() throws IOException {
    Path script = Files.createTempFile("torch_anchor", ".py");
    try (InputStream in = TorchAnchor.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IOException(SCRIPT + " is not packaged beside " + TorchAnchor.class.getName());
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    return script;
  }

  private static String ids(long[] tokens) {
    return LongStream.of(tokens).mapToObj(Long::toString).collect(Collectors.joining(","));
  }

  private static List<String> lastLines(List<String> lines) {
    return lines.subList(Math.max(0, lines.size() - 5), lines.size());
  }
}
