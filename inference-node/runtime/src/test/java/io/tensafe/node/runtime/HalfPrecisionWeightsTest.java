package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.Tensor;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Half-precision folders held in two bytes per value ({@link WeightMatrix}) against the same
 * weights widened to F32 on load, which is what the decoder held before: the F32 folder here is
 * written from the half folder's exactly widened values, so it runs the F32 path on the same
 * numbers.
 */
class HalfPrecisionWeightsTest {
  private static final long[] PROMPT = {9707, 11, 1879, 0, 3555, 374};

  /**
   * BF16 against its widened F32 copy: every logit within 1e-6 of the largest logit's magnitude
   * (the held values are exact; the BF16 vector loops and DJL's F32 product differ only in
   * summation order).
   */
  static final double BF16_TOLERANCE = 1e-6;

  @TempDir Path dir;

  @Test
  void forward_bf16Folder_matchesTheWidenedF32FolderWithinTolerance() throws Exception {
    for (ModelGenerator.Arch arch : ModelGenerator.Arch.values()) {
      float[][] half = logits(write(DType.BF16, arch, "bf16-" + arch));
      float[][] wide = logits(widenedCopy(dir.resolve("bf16-" + arch), "wide-bf16-" + arch));
      for (int step = 0; step < half.length; step++) {
        assertClose(wide[step], half[step], BF16_TOLERANCE, arch + " step " + step);
      }
    }
  }

  /**
   * Int8 with a scale per row (measured only, {@link WeightPrecision#INT8}) against F32 on the same
   * values: the prompt's logits within 2 % of the largest logit (measured 0.5 % on the tiny shape's
   * 2 architectures; each weight moves by up to half a step, 1/254 of its row's largest), and not
   * equal to them, so the int8 path really ran.
   */
  static final double INT8_TOLERANCE = 2e-2;

  @Test
  void forward_int8Precision_staysWithinTheQuantisationBound() throws Exception {
    for (ModelGenerator.Arch arch : ModelGenerator.Arch.values()) {
      Path bf16 = write(DType.BF16, arch, "int8-" + arch);
      float[] wide = logits(widenedCopy(bf16, "wide-int8-" + arch))[0];
      float[] int8 = logits(bf16, WeightPrecision.INT8)[0];
      assertClose(wide, int8, INT8_TOLERANCE, arch + " int8");
      double largest = 0;
      for (int i = 0; i < wide.length; i++) {
        largest = Math.max(largest, Math.abs(wide[i] - int8[i]));
      }
      assertTrue(largest > 1e-6, arch + ": int8 logits equal F32's, so no int8 path ran");
    }
  }

  @Test
  void forward_f16Folder_equalsTheWidenedF32Folder() throws Exception {
    Path f16 = write(DType.F16, ModelGenerator.Arch.QWEN2, "f16");
    float[][] half = logits(f16);
    float[][] wide = logits(widenedCopy(f16, "wide-f16"));
    for (int step = 0; step < half.length; step++) {
      assertArrayEquals(wide[step], half[step], 0f, "step " + step);
    }
  }

  @Test
  void forward_f32Precision_widensAtLoad_andMatchesTheWidenedFolder() throws Exception {
    Path f16 = write(DType.F16, ModelGenerator.Arch.QWEN3, "f16-widened-at-load");
    float[][] atLoad = logits(f16, WeightPrecision.F32);
    float[][] wide = logits(widenedCopy(f16, "wide-f16-at-load"));
    for (int step = 0; step < atLoad.length; step++) {
      assertArrayEquals(wide[step], atLoad[step], 0f, "step " + step);
    }
  }

  @Test
  void load_halfFolders_holdMatricesInTwoBytesPerValue() throws Exception {
    ModelFolder folder = ModelFolder.load(write(DType.BF16, ModelGenerator.Arch.QWEN3, "held"));
    WeightTensor q = folder.weights().get("model.layers.0.self_attn.q_proj.weight");
    assertEquals(DType.BF16, q.dtype());
    try (ai.djl.ndarray.NDManager manager = ai.djl.ndarray.NDManager.newBaseManager("PyTorch");
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
      WeightMatrix m = WeightMatrix.of(manager, arena, q, new WideningBuffers(manager));
      assertTrue(m instanceof Bf16Matrix, m.getClass().getSimpleName());
      assertEquals(2L * q.elementCount(), m.heldBytes());
    }
  }

  /** Prefill logits, then three greedy decode steps' logits. */
  private static float[][] logits(Path folder) throws Exception {
    return logits(folder, WeightPrecision.HALF);
  }

  private static float[][] logits(Path folder, WeightPrecision precision) throws Exception {
    try (QwenDecoder decoder = new QwenDecoder(ModelFolder.load(folder), precision);
        KvCache cache = decoder.newCache()) {
      float[][] out = new float[4][];
      out[0] = decoder.forward(PROMPT, cache);
      for (int step = 1; step < out.length; step++) {
        out[step] = decoder.forward(new long[] {argmax(out[step - 1])}, cache);
      }
      return out;
    }
  }

  private Path write(DType dtype, ModelGenerator.Arch arch, String name) throws Exception {
    System.setProperty("ai.djl.offline", "true");
    Path out = dir.resolve(name);
    ModelGenerator.write(ModelShape.TINY, dtype, 61, out, s -> {}, arch);
    return out;
  }

  /** {@code source}'s tensors widened to F32 (exact), with its config, as a new folder. */
  private Path widenedCopy(Path source, String name) throws Exception {
    List<Tensor> tensors = new ArrayList<>();
    for (Map.Entry<String, WeightTensor> e : ModelFolder.load(source).weights().entrySet()) {
      float[] values = e.getValue().floats();
      ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
      for (float v : values) {
        bytes.putFloat(v);
      }
      tensors.add(new Tensor(e.getKey(), DType.F32, e.getValue().shape(), bytes.array()));
    }
    Path out = Files.createDirectories(dir.resolve(name));
    Files.copy(source.resolve("config.json"), out.resolve("config.json"));
    try (OutputStream stream = Files.newOutputStream(out.resolve("model.safetensors"))) {
      SafetensorsWriter.write(tensors, Map.of(), stream);
    }
    return out;
  }

  static void assertClose(float[] expected, float[] actual, double relative, String what) {
    assertEquals(expected.length, actual.length, what);
    double largest = 0;
    for (float v : expected) {
      largest = Math.max(largest, Math.abs(v));
    }
    for (int i = 0; i < expected.length; i++) {
      double error = Math.abs(expected[i] - actual[i]);
      assertTrue(
          error <= relative * largest,
          what + ": logit " + i + " differs by " + error + ", largest logit " + largest);
    }
  }

  private static long argmax(float[] logits) {
    int best = 0;
    for (int i = 1; i < logits.length; i++) {
      if (logits[i] > logits[best]) {
        best = i;
      }
    }
    return best;
  }
}
