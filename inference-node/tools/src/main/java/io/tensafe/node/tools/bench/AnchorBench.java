package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.HeldMatrices;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.WeightPrecision;
import io.tensafe.node.tools.bench.TorchAnchor.Held;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./tensafe bench node --anchors}: the node's decode and prefill speed with its weights held
 * F32 ({@link WeightPrecision#F32}, as {@code --widen-weights}) and in two bytes ({@link
 * WeightPrecision#HALF}), beside PyTorch eager on the same folder ({@link TorchAnchor}) and the
 * memory roofline ({@link DecodeRoofline}), in one run ({@link AnchorReport}).
 *
 * <p>Order, so that the machine holds one copy of the weights at a time: the streaming read (512
 * MiB), the generated BF16 folder written to a temporary directory, PyTorch in its child process
 * (BF16, then F32), the node holding BF16, closed, then the node holding F32, closed; the folder is
 * deleted at the end.
 */
final class AnchorBench {
  private final PrintStream out;
  private final boolean json;
  private final Path python;
  private final String torchOmpWaitPolicy;

  /**
   * Prints to {@code out}; PyTorch runs in {@code python} with that OMP_WAIT_POLICY (null: unset).
   */
  AnchorBench(PrintStream out, boolean json, Path python, String torchOmpWaitPolicy) {
    this.out = out;
    this.json = json;
    this.python = python;
    this.torchOmpWaitPolicy = torchOmpWaitPolicy;
  }

  /**
   * Runs the anchors on a generated dense model of {@code shape}: a {@code prefillTokens}-token
   * prompt, then {@code decodeTokens} timed greedy tokens, per runner and holding.
   */
  void run(ModelShape shape, int prefillTokens, int decodeTokens)
      throws IOException, InterruptedException {
    int threads = HeldMatrices.productThreads();
    long[] prompt = AnchorProtocol.prompt(prefillTokens);
    System.err.println("measuring a 512 MiB streaming read ...");
    double gbPerS = MatrixBench.streamingReadGbPerS(threads);
    System.err.println("measuring the F32 FMA rate ...");
    double fmaPeak = HeldMatrices.fmaPeakGmacPerS(threads);
    Path dir = BenchModels.folder(shape, false);
    Map<Held, TokenRates> node = new EnumMap<>(Held.class);
    TorchAnchor.Result torch;
    float[] f32Logits = null;
    double bf16Difference = Double.NaN;
    TokenRates int8 = null;
    double int8Difference = Double.NaN;
    try {
      System.err.printf(Locale.ROOT, "PyTorch eager on the folder (%s) ...%n", python);
      torch =
          new TorchAnchor(python, threads, torchOmpWaitPolicy).measure(dir, prompt, decodeTokens);
      if (!torch.present()) {
        System.err.println("PyTorch is absent: " + torch.detail());
      }
      for (Held h : List.of(Held.F32, Held.BF16)) { // F32 first: the others' logits against it
        System.err.printf(Locale.ROOT, "the node holding %s ...%n", h);
        try (QwenDecoder decoder =
            BenchModels.decoder(dir, h == Held.BF16 ? WeightPrecision.HALF : WeightPrecision.F32)) {
          float[][] logits = new float[1][];
          node.put(h, AnchorProtocol.measure(decoder, prompt, decodeTokens, l -> logits[0] = l));
          if (h == Held.F32) {
            f32Logits = logits[0];
          } else {
            bf16Difference = AnchorProtocol.relativeDifference(f32Logits, logits[0]);
          }
        }
        System.gc(); // the folder's bytes read at load: garbage before the next holding
      }
      if (HeldMatrices.lanes() > 1) {
        System.err.println("the node holding int8 (measured only) ...");
        try (QwenDecoder decoder = BenchModels.decoder(dir, WeightPrecision.INT8)) {
          float[][] logits = new float[1][];
          int8 = AnchorProtocol.measure(decoder, prompt, decodeTokens, l -> logits[0] = l);
          int8Difference = AnchorProtocol.relativeDifference(f32Logits, logits[0]);
        }
        System.gc();
      }
    } finally {
      BenchModels.delete(dir);
    }
    Map<Held, DecodeRoofline> rooflines = new EnumMap<>(Held.class);
    rooflines.put(Held.BF16, DecodeRoofline.of(shape, 2, gbPerS));
    rooflines.put(Held.F32, DecodeRoofline.of(shape, 4, gbPerS));
    AnchorReport report =
        new AnchorReport(
            shape.name(),
            shape.layers(),
            threads,
            HeldMatrices.lanes(),
            HeldMatrices.loops(),
            node,
            torch,
            rooflines,
            fmaPeak,
            DecodeRoofline.layerValues(shape),
            new AnchorReport.Int8(int8, bf16Difference, int8Difference));
    out.print(json ? report.json() + System.lineSeparator() : report.text());
  }
}
