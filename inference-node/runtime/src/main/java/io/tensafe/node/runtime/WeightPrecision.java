package io.tensafe.node.runtime;

/**
 * How a decoder holds a folder's half-precision (BF16, F16) weight matrices. F32 matrices are held
 * as F32 either way, and the arithmetic is F32 either way, so the two give the same logits (see
 * {@link WeightMatrix}); they trade memory for speed.
 */
public enum WeightPrecision {
  /**
   * Two bytes per value, widened to F32 for each product: half the resident memory, each decode
   * step slower (docs/benchmarks.md, "Resident memory of a BF16 model"). The default.
   */
  HALF,
  /** Widened to F32 once, at load: twice the memory, the decode speed of an F32 model. */
  F32
}
