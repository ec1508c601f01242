package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.Tensor;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Qwen2 and Qwen2.5 for real (issue 23): the q/k/v projection biases are applied, and a tensor the
 * decoder does not use is an error naming it.
 */
class Qwen2DecoderTest {
  private static final long[] PROMPT = {9707, 11, 1879, 0, 3555, 374};

  private static double worstDifference(double[] expected, float[] actual) {
    double worst = 0;
    for (int i = 0; i < expected.length; i++) {
      worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
    }
    return worst;
  }

  @Test
  void qwen2Biases_areApplied_asTheScalarReferenceDoes() throws Exception {
    try (TinyModel model = TinyModel.generate(DType.BF16, 31, ModelGenerator.Arch.QWEN2)) {
      assertEquals("qwen2", model.decoder().modelType());
      ModelFolder folder = ModelFolder.load(model.dir());
      assertTrue(folder.weights().containsKey("model.layers.0.self_attn.q_proj.bias"));
      double[] expected = new ScalarQwenReference(folder).lastLogits(PROMPT);
      double[] withoutBiases = new ScalarQwenReference(folder).ignoringBiases().lastLogits(PROMPT);
      float[] actual;
      try (KvCache cache = model.decoder().newCache()) {
        actual = model.decoder().forward(PROMPT, cache);
      }
      double largest = 0;
      double biasEffect = 0;
      for (int i = 0; i < expected.length; i++) {
        largest = Math.max(largest, Math.abs(expected[i]));
        biasEffect = Math.max(biasEffect, Math.abs(expected[i] - withoutBiases[i]));
      }
      double worst = worstDifference(expected, actual);
      assertTrue(worst < 1e-4 * largest, "largest logit difference " + worst + " of " + largest);
      assertTrue(biasEffect > 100 * worst, "the biases must matter: " + biasEffect);
    }
  }

  @Test
  void aTensorTheDecoderDoesNotUse_isAnErrorNamingIt() throws Exception {
    try (TinyModel model = TinyModel.generate(DType.F32, 32)) {
      String extra = "model.layers.0.mlp.shared_expert.weight";
      try (OutputStream out = Files.newOutputStream(model.dir().resolve("z-extra.safetensors"))) {
        SafetensorsWriter.write(
            List.of(new Tensor(extra, DType.F32, List.of(2L), new byte[8])), Map.of(), out);
      }
      ModelFolder folder = ModelFolder.load(model.dir());
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new QwenDecoder(folder));
      assertTrue(e.getMessage().contains(extra), e.getMessage());
    }
  }
}
