package io.tensafe.node.runtime;

/**
 * How a decoder holds a folder's half-precision (BF16, F16) weight matrices. F32 matrices are held
 * as F32 either way, and the arithmetic is F32 either way, so the two give the same logits up to
 * summation order (see {@link WeightMatrix}); they trade memory for speed differently for BF16 and
 * F16.
 */
public enum WeightPrecision {
  /**
   * Two bytes per value. BF16 matrices are multiplied straight from their two-byte storage by this
   * package's vector loops ({@link Bf16Matrix}): half the memory of {@link #F32} and, on a decode
   * step, which is memory-bound, faster than it too (Qwen2.5-1.5B's shape on 2 cores: 168 against
   * 437 ms per token, with PyTorch's OpenMP threads set to sleep between operations:
   * docs/benchmarks.md, "Two-byte weights faster than four"; a 128-token prefill on AVX-512 is
   * faster too, 40-51 against 38 tokens/s: "Prefill as a blocked product"). F16 matrices are
   * widened to F32 per product, each decode step slower than F32. The default.
   */
  HALF,
  /**
   * Widened to F32 once, at load: twice the memory, multiplied by DJL. No longer the fast option
   * for a BF16 model on AVX-512 (on an AVX2 host, for long prompts only); for an F16 model it still
   * is.
   */
  F32,
  /**
   * Every 2-D matrix quantised at load to one byte per value with an F32 scale per row ({@link
   * Int8Matrix}): a quarter of F32's memory, logits no longer equal to F32's (only within the
   * quantisation's error). Measured by {@code ./tensafe bench node --anchors} only, not a node
   * setting (issue 52: offered only if it gains 1.5× over BF16 decode; ADR 0046). Needs the vector
   * module; a prefill runs one token at a time.
   */
  INT8
}
