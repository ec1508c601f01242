package io.tensafe.node.tools.demomodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.PreparedAdapter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trained demo model and adapter through the node's decoder: the base answers banking questions
 * in the corpus's English, the adapter changes those answers into banking text, in plaintext and in
 * HE mode alike. Needs the model folder ({@code ./tensafe test} builds it once before Maven; the
 * tools' surefire configuration passes its path as {@code tensafe.demo.model.dir}); without it the
 * test fails, saying how to build it. A model with random weights fails it.
 */
class DemoModelTest {
  static final String PROPERTY = "tensafe.demo.model.dir";

  static final List<String> BANKING_PROMPTS =
      io.tensafe.node.tools.utility.ReferencePrompts.BANKING;

  static final Set<String> BANKING_WORDS =
      Set.of(
          "bank",
          "branch",
          "loan",
          "mortgage",
          "interest",
          "rate",
          "account",
          "deposit",
          "savings",
          "credit",
          "income",
          "apply",
          "percent",
          "online",
          "balance");

  private static DemoAnswers answers;
  private static Set<String> corpusWords;
  private static final List<long[]> base = new ArrayList<>();
  private static final List<long[]> adapted = new ArrayList<>();

  @BeforeAll
  static void load() throws Exception {
    Path dir = modelDir();
    answers = DemoAnswers.load(dir);
    corpusWords = new HashSet<>(Files.readAllLines(dir.resolve(DemoModel.WORDS)));
    LoraPath plain = new LoraPath(answers.adapter(), LoraPath.Mode.PLAINTEXT, null);
    for (String prompt : BANKING_PROMPTS) {
      base.add(answers.greedy(prompt, null, 32));
      adapted.add(answers.greedy(prompt, plain, 32));
    }
  }

  /** The folder named by the property (or TENSAFE_DEMO_MODEL_DIR); fails when it is not there. */
  static Path modelDir() {
    String dir = System.getProperty(PROPERTY, System.getenv("TENSAFE_DEMO_MODEL_DIR"));
    if (dir == null || dir.isBlank()) {
      fail(
          "no demo model: set -D"
              + PROPERTY
              + " (the tools' pom does) to a folder built by ./tensafe model demo --out DIR;"
              + " ./tensafe test builds it into .tensafe/run/models/demo");
    }
    Path path = Path.of(dir);
    if (!Files.isRegularFile(path.resolve("model.safetensors"))
        || !Files.isDirectory(path.resolve(DemoModel.ADAPTER_FOLDER))) {
      fail(
          path
              + " holds no demo model; build it with ./tensafe model demo --out "
              + path
              + " (./tensafe test does so before Maven)");
    }
    return path;
  }

  @AfterAll
  static void close() {
    if (answers != null) {
      answers.close();
    }
  }

  private static List<String> words(long[] ids) {
    return Arrays.stream(answers.text(ids).toLowerCase(Locale.ROOT).split("[^a-z]+"))
        .filter(w -> !w.isEmpty())
        .toList();
  }

  @Test
  void baseModel_answersBankingPrompts_inTheCorpusEnglish() {
    int words = 0;
    int known = 0;
    StringBuilder all = new StringBuilder();
    for (long[] ids : base) {
      for (String w : words(ids)) {
        words++;
        known += corpusWords.contains(w) ? 1 : 0;
      }
      all.append("\n  ").append(answers.text(ids));
    }
    assertTrue(words >= 8 * 8, "the base model says too little:" + all);
    assertTrue(
        known >= 0.9 * words,
        known + " of " + words + " words are the corpus's; the answers:" + all);
  }

  @Test
  void adapter_changesEveryGreedyAnswer_intoBankingText() {
    int banking = 0;
    StringBuilder all = new StringBuilder();
    for (int i = 0; i < BANKING_PROMPTS.size(); i++) {
      assertFalse(
          Arrays.equals(base.get(i), adapted.get(i)),
          "the adapter leaves the answer to " + BANKING_PROMPTS.get(i) + " as it was");
      List<String> w = words(adapted.get(i));
      banking += w.stream().anyMatch(BANKING_WORDS::contains) ? 1 : 0;
      all.append("\n  ").append(answers.text(adapted.get(i)));
    }
    assertTrue(banking >= 7, banking + " of 8 adapted answers speak of banking:" + all);
  }

  @Test
  void heMode_givesThePlaintextAnswer() {
    PreparedAdapter prepared =
        new PreparedAdapter(answers.adapter(), new HeOperators(new CpuBackend()));
    long[] he =
        answers.greedy(BANKING_PROMPTS.get(0), new LoraPath(prepared, LoraPath.Mode.HE, null), 16);
    assertArrayEquals(Arrays.copyOf(adapted.get(0), he.length), he, answers.text(he));
    assertFalse(Arrays.equals(Arrays.copyOf(base.get(0), he.length), he));
  }
}
