package io.tensafe.kernels.params;

import java.util.List;

/**
 * Named parameter sets. Each is 128-bit secure by the HE Standard table ({@link SecurityTable});
 * {@code ParameterPresetsTest} builds every one through {@link Parameters#of}.
 */
public final class ParameterPresets {
  private ParameterPresets() {}

  /**
   * The public prototype's chain, kept for parity measurements: N = 2^14, primes of 60, 40, 40 and
   * 60 bits, Δ = 2^40. log2 Q ≈ 200 against a bound of 438 at N = 2^14, so it is secure but about
   * four times wider, and eight times longer per limb, than a depth-1 product needs.
   */
  public static final ParameterSpec PROTOTYPE_BASELINE =
      new ParameterSpec(14, List.of(60, 40, 40, 60), 40);

  /**
   * The smallest set for the hosted HE-LoRA product {@code A·x} (one ct×pt, then decryption): N =
   * 2^11, one 50-bit prime, Δ = 2^23 nominal (the hosted operators derive their scales from the
   * data).
   *
   * <p>Derivation. Depth 1 needs no rescale and no key switching, so one prime suffices, and the
   * smallest ring, N = 2^11, allows log Q ≤ 54 by the HE Standard. The prime is 50 bits, not 54, so
   * that its products run exactly on lanes of doubles with fused multiply-adds (ADR 0033: AVX2 has
   * no 64-bit integer product), and a smaller Q only adds security. The operator keeps every
   * product coefficient below q/4, so the budget is 48 bits where it was 52: the error bound {@code
   * 21·‖x‖∞·‖A_i‖₁·2^-24} is four times the 54-bit one, measured 3.9e-5 relative at d = 2048
   * against the 1e-4 the operator must meet (docs/benchmarks.md, issue 38); the operator's
   * precision tests check it on realistic data.
   */
  public static final ParameterSpec HOSTED_LORA = new ParameterSpec(11, List.of(50), 23);
}
