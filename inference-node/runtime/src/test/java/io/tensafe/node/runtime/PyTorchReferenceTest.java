package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tensafe.node.model.ModelGenerator;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Java decoder against an independent forward pass in Debian's PyTorch ({@code
 * qwen_reference.py} in the test resources, float64), on the same generated weights: the last
 * token's logits agree within 1e-4 (absolute) for Qwen3, Qwen2 with q/k/v biases and Qwen3-MoE,
 * without and with an adapter (Qwen3-MoE's on its experts). CI installs {@code python3-torch}
 * ({@code ./tensafe test}); elsewhere the test is skipped with that reason when the package is
 * missing, and fails in CI.
 */
class PyTorchReferenceTest {
  private static final String PYTHON = "/usr/bin/python3";
  private static final long[] PROMPT = {9707, 11, 1879, 0, 3555, 374, 264, 18986};

  @BeforeAll
  static void needsPyTorch() throws Exception {
    boolean available = run(PYTHON, "-c", "import torch") == 0;
    if (!available && System.getenv("CI") != null) {
      fail("CI must have Debian's python3-torch (./tensafe test installs it)");
    }
    Assumptions.assumeTrue(available, "Debian's python3-torch is not installed");
  }

  private static int run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  private static double[] reference(Path model, long[] tokens, String... adapter) throws Exception {
    Path script = Files.createTempFile("qwen_reference", ".py");
    Path out = Files.createTempFile("logits", ".bin");
    try (InputStream in =
        PyTorchReferenceTest.class.getResourceAsStream(
            "/io/tensafe/node/reference/qwen_reference.py")) {
      Files.write(script, in.readAllBytes());
    }
    String list = Arrays.stream(tokens).mapToObj(Long::toString).collect(Collectors.joining(","));
    java.util.List<String> command =
        new java.util.ArrayList<>(
            java.util.List.of(PYTHON, script.toString(), model.toString(), list, out.toString()));
    command.addAll(Arrays.asList(adapter));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the reference did not finish");
    assertEquals(0, p.exitValue(), output);
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
    double[] logits = new double[b.remaining() / 8];
    for (int i = 0; i < logits.length; i++) {
      logits[i] = b.getDouble();
    }
    Files.deleteIfExists(script);
    Files.deleteIfExists(out);
    return logits;
  }

  @ParameterizedTest
  @EnumSource(ModelGenerator.Arch.class)
  void javaLogits_matchPyTorch(ModelGenerator.Arch arch) throws Exception {
    try (TinyModel model = TinyModel.generate(DType.BF16, 41, arch)) {
      float[] actual;
      try (KvCache cache = model.decoder().newCache()) {
        actual = model.decoder().forward(PROMPT, cache);
      }
      double difference = requireClose(arch, reference(model.dir(), PROMPT), actual);
      assertTrue(difference <= 1e-4, arch + ": largest logit difference " + difference);
    }
  }

  /**
   * With an adapter on every linear module (Qwen3-MoE: attention and every expert's gate, up and
   * down), applied in plaintext by the Java decoder and by PEFT's rule in the reference.
   */
  @ParameterizedTest
  @EnumSource(ModelGenerator.Arch.class)
  void javaLogitsWithAnAdapter_matchPyTorch(ModelGenerator.Arch arch) throws Exception {
    try (TinyModel model = TinyModel.generate(DType.BF16, 42, arch)) {
      var shape = model.decoder().shape();
      double scale = 2.0;
      LoraAdapter adapter =
          arch == ModelGenerator.Arch.QWEN3_MOE
              ? LoraAdapter.randomForAttention(shape, 4, scale, 0.1, 43)
                  .with(
                      LoraAdapter.randomForExperts(
                          shape, ModelGenerator.TINY_MOE, 4, scale, 0.3, 44))
              : LoraAdapter.random(shape, LoraAdapter.ALL_MODULES, 4, scale, 0.1, 43);
      Path file = Files.createTempFile("adapter", ".safetensors");
      writeAdapter(adapter, file);
      float[] base;
      float[] actual;
      try (KvCache cache = model.decoder().newCache()) {
        base = model.decoder().forward(PROMPT, cache);
      }
      try (KvCache cache = model.decoder().newCache()) {
        actual =
            model
                .decoder()
                .forward(
                    PROMPT,
                    cache,
                    new LoraPath(
                        new PreparedAdapter(adapter, null), LoraPath.Mode.PLAINTEXT, null));
      }
      double[] expected = reference(model.dir(), PROMPT, file.toString(), Double.toString(scale));
      Files.deleteIfExists(file);
      double difference = requireClose(arch, expected, actual);
      double effect = 0;
      for (int i = 0; i < base.length; i++) {
        effect = Math.max(effect, Math.abs(base[i] - actual[i]));
      }
      assertTrue(difference <= 1e-4, arch + ": largest logit difference " + difference);
      assertTrue(effect > 100 * 1e-4, arch + ": the adapter must move the logits: " + effect);
    }
  }

  /** The largest absolute difference, after checking the logits are not trivially small. */
  private static double requireClose(ModelGenerator.Arch arch, double[] expected, float[] actual) {
    assertEquals(expected.length, actual.length);
    double worst = 0;
    double largest = 0;
    for (int i = 0; i < expected.length; i++) {
      worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
      largest = Math.max(largest, Math.abs(expected[i]));
    }
    assertTrue(largest > 0.05, arch + ": logits must not be trivially small: " + largest);
    return worst;
  }

  /** The adapter's A and B as F32 tensors under PEFT's names. */
  private static void writeAdapter(LoraAdapter adapter, Path file) throws IOException {
    java.util.List<io.tensafe.tgsp.safetensors.Tensor> tensors = new java.util.ArrayList<>();
    for (var e : new java.util.TreeMap<>(adapter.sites()).entrySet()) {
      String prefix = "base_model.model." + e.getKey();
      tensors.add(tensor(prefix + ".lora_A.weight", e.getValue().a()));
      tensors.add(tensor(prefix + ".lora_B.weight", e.getValue().b()));
    }
    try (var out = Files.newOutputStream(file)) {
      io.tensafe.tgsp.safetensors.SafetensorsWriter.write(tensors, java.util.Map.of(), out);
    }
  }

  private static io.tensafe.tgsp.safetensors.Tensor tensor(String name, double[][] m) {
    double[] flat = new double[m.length * m[0].length];
    for (int i = 0; i < m.length; i++) {
      System.arraycopy(m[i], 0, flat, i * m[0].length, m[0].length);
    }
    return io.tensafe.tgsp.safetensors.Tensor.of(
        name, DType.F32, java.util.List.of((long) m.length, (long) m[0].length), flat);
  }
}
