package io.tensafe.node.tools.utility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tensafe.tgsp.cli.TgspCommand;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.manifest.Manifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tgsp pack --model-dir} on the trained demo model and adapter (ADR 0035): it measures the
 * effect the adapter keeps under the policy, refuses below {@code --min-effect} naming the measured
 * agreement and writing nothing, and signs the figures into the manifest when it packs. Needs the
 * demo model folder, as {@code DemoModelTest} does ({@code tensafe.demo.model.dir}).
 */
class MeasuredPackTest {
  static final String PROPERTY = "tensafe.demo.model.dir";
  private static final SecureRandom RANDOM = new SecureRandom();

  @TempDir static Path keys;
  @TempDir Path dir;

  private static Path model;

  @BeforeAll
  static void keysAndModel() throws Exception {
    model = modelDir();
    KeyFiles.writeCreatorPrivate(
        CreatorKeyPair.generate("acme", RANDOM), keys.resolve("creator.key"));
    KeyFiles.writeFleetPublic(
        FleetKeyPair.generate("fleet-a", RANDOM).publicKey(), keys.resolve("fleet.pub"));
  }

  /** The folder named by the property (or TENSAFE_DEMO_MODEL_DIR); fails when it is not there. */
  private static Path modelDir() {
    String dir = System.getProperty(PROPERTY, System.getenv("TENSAFE_DEMO_MODEL_DIR"));
    if (dir == null || dir.isBlank()) {
      fail("no demo model: set -D" + PROPERTY + " to a folder built by ./tensafe model demo");
    }
    Path path = Path.of(dir);
    if (!Files.isRegularFile(path.resolve("model.safetensors"))
        || !Files.isDirectory(path.resolve("demo-adapter"))) {
      fail(path + " holds no demo model; build it with ./tensafe model demo --out " + path);
    }
    return path;
  }

  /** What a run of the CLI returned and printed. */
  private record Run(int exitCode, String out, String err) {}

  private Run pack(Path out, String noiseMultiplier, String... more) throws Exception {
    Path prompts = dir.resolve("prompts.txt");
    Files.writeString(
        prompts, "How do I apply for a mortgage?\nCan I close my fixed deposit early?\n");
    List<String> args =
        new ArrayList<>(
            List.of(
                "pack",
                "--peft",
                model.resolve("demo-adapter").toString(),
                "--creator-key",
                keys.resolve("creator.key").toString(),
                "--recipient",
                keys.resolve("fleet.pub").toString(),
                "--adapter-id",
                "demo-banking",
                "--version",
                "1.0.0",
                "--price-prompt",
                "1000",
                "--price-completion",
                "2000",
                "--keywords",
                "mortgage,savings",
                "--domain",
                "finance",
                "--model-dir",
                model.toString(),
                "--effect-prompts",
                prompts.toString(),
                // Above every LoRA input's norm: the default C = 1 clips the demo adapter's inputs
                // and costs most of its effect even without noise.
                "--clip-norm",
                "1000",
                "--noise-multiplier",
                noiseMultiplier,
                "--out",
                out.toString()));
    args.addAll(List.of(more));
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      code = TgspCommand.execute(new PackEffectMeasurer(), args.toArray(String[]::new));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    Run run = new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    stdout.print(run.out());
    stderr.print(run.err());
    return run;
  }

  @Test
  void pack_belowMinEffect_isRefusedNamingTheMeasuredAgreement_andWritesNothing() throws Exception {
    Path out = dir.resolve("noised.tgsp");
    Run run = pack(out, "1", "--min-effect", "0.9");
    assertEquals(1, run.exitCode(), run.err());
    assertFalse(Files.exists(out), "a refused pack left " + out);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("greedy agreement of ([0-9.]+)").matcher(run.err());
    assertTrue(m.find(), run.err());
    BigDecimal agreement = new BigDecimal(m.group(1));
    assertTrue(agreement.compareTo(new BigDecimal("0.9")) < 0, run.err());
    assertTrue(run.err().contains("--min-effect 0.9"), run.err());
    assertTrue(
        run.out().contains("greedy agreement " + agreement.toPlainString()),
        "the refusal names the figure the measurement printed: " + run.out());
  }

  @Test
  void pack_withoutNoise_signsTheMeasuredEffect_withNoTokenLimit() throws Exception {
    Path out = dir.resolve("plain.tgsp");
    Run run = pack(out, "0", "--min-effect", "0.9");
    assertEquals(0, run.exitCode(), run.err());
    Manifest m = PackageReader.inspect(out).manifest();
    assertEquals(0, m.dpPolicy().noiseMultiplier().signum());
    Manifest.MeasuredEffect e = m.measuredEffect().orElseThrow();
    assertEquals(Manifest.MeasuredEffect.METHOD, e.method());
    assertEquals("creator", e.promptSource());
    assertEquals(2, e.prompts());
    assertEquals(PackEffectMeasurer.TOKENS, e.tokensPerPrompt());
    assertTrue(
        e.positions() > 0 && e.positions() <= 2 * PackEffectMeasurer.TOKENS,
        "positions where the demo adapter changes the base's greedy token (0: an untrained demo"
            + " model, whose agreement would be 1 vacuously): "
            + e);
    assertTrue(e.greedyAgreement().compareTo(new BigDecimal("0.9")) >= 0, e.toString());
    assertTrue(e.tokensPerPeriod().isEmpty(), "no noise, no budget, no limit: " + e);
  }
}
