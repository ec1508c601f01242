package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelShape;

/**
 * The memory roofline of a decode step: a dense decoder's step reads every weight matrix once (each
 * layer's q, k, v, o, gate, up and down projections and the output head), so no step can take less
 * than those bytes over the machine's read bandwidth. Left out, each far below 1 % of the bytes at
 * the 1.5B shape: the embedding row looked up, the norm weights and biases, and the KV cache (28
 * layers × 2 × 256 values × 4 bytes per position: 57 KiB, so 8 MiB after 140 positions against 3 GB
 * of BF16 weights). The bound is thus slightly optimistic, never pessimistic.
 *
 * @param weightBytesPerToken bytes of weight matrices one decode step reads (> 0)
 * @param streamReadGbPerS bandwidth of a streaming read on this machine, 10⁹ bytes per second (> 0)
 */
record DecodeRoofline(long weightBytesPerToken, double streamReadGbPerS) {
  DecodeRoofline {
    if (weightBytesPerToken < 1 || !(streamReadGbPerS > 0)) {
      throw new IllegalArgumentException(
          "weight bytes per token must be >= 1 and GB/s > 0, got "
              + weightBytesPerToken
              + " and "
              + streamReadGbPerS);
    }
  }

  /**
   * The roofline of {@code shape} with every weight matrix held in {@code bytesPerWeight} bytes.
   */
  static DecodeRoofline of(ModelShape shape, int bytesPerWeight, double streamReadGbPerS) {
    return new DecodeRoofline(weightBytesPerToken(shape, bytesPerWeight), streamReadGbPerS);
  }

  /**
   * Bytes of the weight matrices one decode step of {@code shape} reads, each value {@code
   * bytesPerWeight} bytes (2 for BF16, 4 for F32): per layer {@code 2·h·(H·d) + 2·h·(K·d) + 3·h·I}
   * values (q and o, k and v, gate, up and down), plus {@code vocab·h} for the head.
   */
  static long weightBytesPerToken(ModelShape shape, int bytesPerWeight) {
    if (bytesPerWeight < 1) {
      throw new IllegalArgumentException("bytes per weight must be >= 1, was " + bytesPerWeight);
    }
    long values = Math.addExact(layerValues(shape), (long) shape.vocabSize() * shape.hiddenSize());
    return Math.multiplyExact(values, bytesPerWeight);
  }

  /**
   * Values of all layers' weight matrices of {@code shape}, {@code layers·(2·h·(H·d) + 2·h·(K·d) +
   * 3·h·I)}: also the multiply-adds of one prompt token's products in a prefill (the head runs for
   * the last token only; attention's own products, quadratic in the prompt, are left out).
   */
  static long layerValues(ModelShape shape) {
    long h = shape.hiddenSize();
    long attention = 2 * h * shape.attentionHeads() * shape.headDim();
    long keyValue = 2 * h * shape.keyValueHeads() * shape.headDim();
    long mlp = 3 * h * shape.intermediateSize();
    return Math.multiplyExact(shape.layers(), attention + keyValue + mlp);
  }

  /** Decode tokens per second no step can beat: the bandwidth over the bytes a step reads. */
  double tokensPerS() {
    return streamReadGbPerS * 1e9 / weightBytesPerToken;
  }
}
