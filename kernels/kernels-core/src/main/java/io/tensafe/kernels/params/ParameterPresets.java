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
   * 2^11, one 54-bit prime, Δ = 2^23 for each of x and A.
   *
   * <p>Derivation. Depth 1 needs no rescale and no key switching, so one prime suffices, and the
   * smallest ring, N = 2^11, allows log Q ≤ 54: the largest 54-bit prime ≡ 1 (mod 2^12) gives log Q
   * just under 54. The product carries scale Δ² = 2^46, leaving 2^7 of headroom for |⟨A_i, x⟩| < 64
   * (LoRA-A rows have norm near 1 after PEFT's initialisation and training; activations entering a
   * LoRA site are normalised). Encoding rounds each entry by at most 2^-24, a relative error near
   * 2^-24·sqrt(d) ≈ 3·10^-6 at d = 2048; the encryption noise e·A (σ = 3.2) adds about 2^-21 of the
   * unit. Both are below the 10^-4 relative error the operator must meet; the operator's precision
   * tests check it on realistic data.
   */
  public static final ParameterSpec HOSTED_LORA = new ParameterSpec(11, List.of(54), 23);
}
