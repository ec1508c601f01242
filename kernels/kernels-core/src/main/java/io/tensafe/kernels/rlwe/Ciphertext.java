package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import java.util.Optional;

/**
 * An RLWE ciphertext {@code (c0, c1)} with {@code c0 + c1·s ≈ m}, both in NTT form over the first
 * {@link #limbCount()} primes of its parameters.
 *
 * <p>A fresh secret-key encryption keeps the seed its {@code c1} was expanded from ({@link
 * #c1Seed()}), so it can travel as {@code c0} and 32 bytes. Any operation returns a ciphertext
 * without a seed. Ciphertexts are immutable: operations return new ones.
 */
public final class Ciphertext {
  static final long C1_SEED_DOMAIN = 0x63315f73L; // "c1_s"

  private final Parameters parameters;
  private final RnsPoly c0;
  private final RnsPoly c1;
  private final double scale;
  private final byte[] c1Seed;

  Ciphertext(Parameters parameters, RnsPoly c0, RnsPoly c1, double scale, byte[] c1Seed) {
    if (!c0.isNtt() || !c1.isNtt() || c0.limbCount() != c1.limbCount()) {
      throw new IllegalArgumentException(
          "c0 and c1 must be NTT polynomials with equal limb counts");
    }
    this.parameters = parameters;
    this.c0 = c0;
    this.c1 = c1;
    this.scale = scale;
    this.c1Seed = c1Seed == null ? null : c1Seed.clone();
  }

  /** A ciphertext of NTT-form {@code c0} and {@code c1} (wrapped, not copied) at {@code scale}. */
  public static Ciphertext ofNtt(Parameters parameters, RnsPoly c0, RnsPoly c1, double scale) {
    return new Ciphertext(parameters, c0, c1, scale, null);
  }

  public Parameters parameters() {
    return parameters;
  }

  /** c0, NTT form: shared, never to be changed. */
  public RnsPoly c0() {
    return c0;
  }

  /** c1, NTT form: shared, never to be changed. */
  public RnsPoly c1() {
    return c1;
  }

  /** The scale of the encrypted values. */
  public double scale() {
    return scale;
  }

  /** Number of primes the ciphertext is taken modulo. Range: [1, parameters().limbCount()]. */
  public int limbCount() {
    return c0.limbCount();
  }

  /** The seed {@code c1} was expanded from, if this is a fresh secret-key encryption. */
  public Optional<byte[]> c1Seed() {
    return Optional.ofNullable(c1Seed).map(byte[]::clone);
  }
}
