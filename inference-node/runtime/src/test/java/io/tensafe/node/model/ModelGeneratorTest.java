package io.tensafe.node.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.Tensor;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelGeneratorTest {
  @TempDir Path dir;

  private static byte[] sha256(Path file) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
  }

  @Test
  void tiny_writesAQwen3FolderWithEveryTensorOfTheRightShape() throws Exception {
    List<String> progress = new ArrayList<>();
    ModelGenerator.write(ModelShape.TINY, DType.F32, 7, dir, progress::add);
    assertTrue(progress.getFirst().startsWith("wrote model.safetensors"), progress.toString());
    String config = Files.readString(dir.resolve("config.json"));
    assertTrue(config.contains("\"model_type\": \"qwen3\""));
    assertTrue(config.contains("\"vocab_size\": 151936"));
    assertTrue(Files.readString(dir.resolve("tokenizer_config.json")).contains("chat_template"));
    assertTrue(Files.size(dir.resolve("tokenizer.json")) > 1_000_000);
    try (SafetensorsFile file = SafetensorsFile.open(dir.resolve("model.safetensors"))) {
      List<TensorInfo> infos = file.header().tensors();
      assertEquals(ModelGenerator.tensors(ModelShape.TINY, DType.F32).size(), infos.size());
      TensorInfo q = find(infos, "model.layers.1.self_attn.q_proj.weight");
      assertEquals(List.of(64L, 64L), q.shape());
      assertEquals(
          List.of(32L, 64L), find(infos, "model.layers.0.self_attn.k_proj.weight").shape());
      assertEquals(List.of(16L), find(infos, "model.layers.0.self_attn.q_norm.weight").shape());
      assertEquals(List.of(151936L, 64L), find(infos, "model.embed_tokens.weight").shape());
      Tensor norm = file.read(find(infos, "model.norm.weight"));
      ByteBuffer values = ByteBuffer.wrap(norm.data()).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(1f, values.getFloat(0));
      Tensor gate = file.read(find(infos, "model.layers.0.mlp.gate_proj.weight"));
      FloatStats stats = FloatStats.of(gate.data());
      assertEquals(0, stats.mean(), 0.002);
      assertEquals(0.02, stats.std(), 0.002);
    }
  }

  @Test
  void sameSeed_sameBytes_otherSeed_otherBytes() throws Exception {
    ModelGenerator.write(ModelShape.TINY, DType.BF16, 3, dir.resolve("a"), s -> {});
    ModelGenerator.write(ModelShape.TINY, DType.BF16, 3, dir.resolve("b"), s -> {});
    ModelGenerator.write(ModelShape.TINY, DType.BF16, 4, dir.resolve("c"), s -> {});
    byte[] a = sha256(dir.resolve("a/model.safetensors"));
    assertArrayEquals(a, sha256(dir.resolve("b/model.safetensors")));
    assertFalse(java.util.Arrays.equals(a, sha256(dir.resolve("c/model.safetensors"))));
    assertTrue(Files.readString(dir.resolve("a/config.json")).contains("bfloat16"));
  }

  @Test
  void qwen25Preset_hasItsPublishedSize() {
    // Qwen2.5-1.5B has 1.54 B parameters; the Qwen3 layout adds q/k norms and drops biases.
    long n = ModelShape.QWEN25_1_5B.parameterCount();
    assertTrue(n > 1_500_000_000L && n < 1_560_000_000L, "parameters: " + n);
  }

  private static TensorInfo find(List<TensorInfo> infos, String name) {
    return infos.stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow();
  }

  private record FloatStats(double mean, double std) {
    static FloatStats of(byte[] data) {
      ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
      int n = data.length / 4;
      double sum = 0;
      double squares = 0;
      for (int i = 0; i < n; i++) {
        double v = b.getFloat(4 * i);
        sum += v;
        squares += v * v;
      }
      double mean = sum / n;
      return new FloatStats(mean, Math.sqrt(squares / n - mean * mean));
    }
  }

  @Test
  void qwen3_30bA3bShape_withOneLayer_hasItsExpertsAndParameters() {
    ModelShape one = ModelShape.QWEN3_30B_A3B.withLayers(1);
    MoeShape moe = MoeShape.QWEN3_30B_A3B;
    long h = 2048;
    long layer =
        2 * h // the two RMSNorms
            + h * 4096 * 2 // q and o
            + h * 512 * 2 // k and v
            + 2 * 128 // q and k norms
            + 128 * h // the router
            + 128L * 3 * 768 * h; // the experts
    long expected = 2 * ModelShape.QWEN_VOCAB * h + layer + h;
    assertEquals(expected, ModelGenerator.parameterCount(one, ModelGenerator.Arch.QWEN3_MOE, moe));
    String config = ModelGenerator.config(one, DType.BF16, ModelGenerator.Arch.QWEN3_MOE, moe);
    assertTrue(config.contains("\"num_experts\": 128"), config);
    assertTrue(config.contains("\"num_experts_per_tok\": 8"), config);
    assertTrue(config.contains("\"model_type\": \"qwen3_moe\""), config);
    assertTrue(config.contains("\"num_hidden_layers\": 1"), config);
  }
}
