package io.tensafe.node.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelFolderTest {
  @TempDir Path dir;

  @Test
  void load_bf16Model_keepsTwoBytesPerValue_widensExactlyToTheTruncatedF32() throws Exception {
    ModelGenerator.write(ModelShape.TINY, DType.F32, 11, dir.resolve("f32"), s -> {});
    ModelGenerator.write(ModelShape.TINY, DType.BF16, 11, dir.resolve("bf16"), s -> {});
    ModelFolder full = ModelFolder.load(dir.resolve("f32"));
    ModelFolder half = ModelFolder.load(dir.resolve("bf16"));
    assertEquals(ModelShape.TINY.hiddenSize(), full.shape().hiddenSize());
    assertEquals(16, full.shape().headDim());
    assertEquals("qwen3", full.modelType());
    assertEquals(1_000_000.0, full.ropeTheta());
    assertEquals(ModelGenerator.tensors(ModelShape.TINY, DType.F32).size(), half.weights().size());
    for (String name : full.weights().keySet()) {
      assertEquals(DType.BF16, half.weights().get(name).dtype(), name);
      assertEquals(
          2 * full.weights().get(name).data().length, 4 * half.weights().get(name).data().length);
      float[] f = full.weights().get(name).floats();
      float[] h = half.weights().get(name).floats();
      assertEquals(f.length, h.length, name);
      for (int i = 0; i < f.length; i++) {
        float truncated = Float.intBitsToFloat(Float.floatToRawIntBits(f[i]) & 0xFFFF0000);
        assertEquals(truncated, h[i], name + "[" + i + "]");
      }
    }
  }

  @Test
  void held_f16KeptAndF64Rounded_widenExactlyWhereRepresentable() {
    Tensor f16 = Tensor.of("x", DType.F16, List.of(3L), new double[] {1.5, -0.25, 65504});
    assertEquals(DType.F16, ModelFolder.held(f16).dtype());
    assertEquals(List.of(1.5f, -0.25f, 65504f), toList(ModelFolder.held(f16).floats()));
    Tensor bf16 = Tensor.of("z", DType.BF16, List.of(2L), new double[] {-0x1p100, 0.375});
    assertEquals(List.of(-0x1p100f, 0.375f), toList(ModelFolder.held(bf16).floats()));
    Tensor f64 = Tensor.of("y", DType.F64, List.of(2L), new double[] {0.1, -3});
    assertEquals(DType.F32, ModelFolder.held(f64).dtype());
    assertEquals(List.of(0.1f, -3f), toList(ModelFolder.held(f64).floats()));
  }

  @Test
  void load_missingOrForeignConfig_failsNamingTheProblem() throws Exception {
    IOException missing = assertThrows(IOException.class, () -> ModelFolder.load(dir));
    assertTrue(missing.getMessage().contains("config.json"), missing.getMessage());
    Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"llama\"}");
    IOException foreign = assertThrows(IOException.class, () -> ModelFolder.load(dir));
    assertTrue(foreign.getMessage().contains("llama"), foreign.getMessage());
    Files.writeString(dir.resolve("config.json"), "{\"model_type\": ");
    assertThrows(IOException.class, () -> ModelFolder.load(dir));
  }

  private static List<Float> toList(float[] values) {
    List<Float> list = new java.util.ArrayList<>();
    for (float v : values) {
      list.add(v);
    }
    return list;
  }
}
