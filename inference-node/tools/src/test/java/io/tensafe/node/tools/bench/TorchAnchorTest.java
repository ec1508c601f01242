package io.tensafe.node.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.WeightPrecision;
import io.tensafe.tgsp.safetensors.DType;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code torch_anchor.py} runs the same model as the node: its F32 logits on a generated tiny model
 * equal the node's F32 logits ({@link WeightPrecision#F32}) for a prompt and for two tokens fed
 * after it through each one's KV cache, within {@value #TOLERANCE} of the largest logit (F32 both,
 * differing in summation order and in the rotary angles' precision only: measured at most 4.2e-7;
 * dropping only the k projection's bias from the script makes it 7.5e-3, so a skipped bias, norm or
 * rotary step, a wrong head grouping or a missing causal mask fails). Both of the node's dense
 * architectures: Qwen3 (q/k norms, tied head, BF16 folder) and Qwen2 (q/k/v biases, separate head,
 * F32 folder).
 *
 * <p>Needs Debian's {@code python3-torch} ({@code /usr/bin/python3}); skipped, saying why, where
 * {@code import torch} fails. CI installs it.
 */
class TorchAnchorTest {
  /** The largest |node − PyTorch| logit allowed, over the largest |node| logit. */
  static final double TOLERANCE = 1e-5;

  private static final long[] PROMPT = AnchorProtocol.prompt(12);
  private static final long[] CONTINUATION = {151_643, 42};

  static void assumeTorch() throws Exception {
    System.setProperty("ai.djl.offline", "true");
    String[] reason = new String[1];
    boolean present =
        new TorchAnchor(TorchAnchor.DEFAULT_PYTHON, 1, "PASSIVE").version(reason).isPresent();
    Assumptions.assumeTrue(present, () -> "PyTorch is not available: " + reason[0]);
  }

  @Test
  void measure_pythonMissing_isAbsentWithTheReason(@TempDir Path dir) throws Exception {
    Path python = dir.resolve("no-such-python3");
    TorchAnchor.Result result = new TorchAnchor(python, 1, null).measure(dir, PROMPT, 1);
    assertFalse(result.present());
    assertTrue(result.detail().contains(python.toString()), result.detail());
    assertTrue(result.rates().isEmpty());
  }

  @Test
  void logits_qwen3TiedBf16Folder_matchNodeF32(@TempDir Path dir) throws Exception {
    assumeTorch();
    ModelGenerator.write(ModelShape.TINY, DType.BF16, 3, dir, s -> {}, ModelGenerator.Arch.QWEN3);
    assertSameLogits(dir, ModelShape.TINY.vocabSize());
  }

  @Test
  void logits_qwen2UntiedF32Folder_matchNodeF32(@TempDir Path dir) throws Exception {
    assumeTorch();
    ModelShape untied =
        new ModelShape("tiny-untied", ModelShape.QWEN_VOCAB, 64, 128, 2, 4, 2, 16, false);
    ModelGenerator.write(untied, DType.F32, 4, dir, s -> {}, ModelGenerator.Arch.QWEN2);
    assertSameLogits(dir, untied.vocabSize());
  }

  private static void assertSameLogits(Path dir, int vocab) throws Exception {
    float[][] torch =
        new TorchAnchor(TorchAnchor.DEFAULT_PYTHON, 1, "PASSIVE")
            .logits(dir, PROMPT, CONTINUATION, vocab);
    float[][] node = new float[CONTINUATION.length + 1][];
    try (QwenDecoder decoder = new QwenDecoder(ModelFolder.load(dir), WeightPrecision.F32);
        KvCache cache = decoder.newCache()) {
      node[0] = decoder.forward(PROMPT, cache);
      for (int i = 0; i < CONTINUATION.length; i++) {
        node[i + 1] = decoder.forward(new long[] {CONTINUATION[i]}, cache);
      }
    }
    for (int row = 0; row < node.length; row++) {
      assertEquals(vocab, torch[row].length);
      double largest = 0;
      double worst = 0;
      for (int i = 0; i < vocab; i++) {
        largest = Math.max(largest, Math.abs(node[row][i]));
        worst = Math.max(worst, Math.abs(node[row][i] - torch[row][i]));
      }
      assertTrue(largest > 0.1, "row " + row + ": logits too small to compare: " + largest);
      assertTrue(
          worst <= TOLERANCE * largest,
          "row " + row + ": |node - torch| up to " + worst + " against largest |logit| " + largest);
    }
  }
}
