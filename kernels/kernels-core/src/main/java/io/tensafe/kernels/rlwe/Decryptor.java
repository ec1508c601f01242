package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import java.util.List;

/** Decrypts ciphertexts, computing only the limbs the decoder needs. */
public final class Decryptor {
  private Decryptor() {}

  /**
   * {@code c0 + c1·s} over the first {@code limbs} primes, returned in coefficient form with the
   * ciphertext's scale. One limb suffices when the scaled values and noise stay below half the
   * first prime.
   *
   * @param limbs in [1, ciphertext.limbCount()]
   */
  public static Plaintext decrypt(Ciphertext ciphertext, SecretKey key, int limbs) {
    Plaintext ntt = decryptToNtt(ciphertext, key, limbs);
    ntt.poly().toCoefficientsInPlace(key.parameters().ntts().subList(0, limbs));
    return ntt;
  }

  /**
   * {@code c0 + c1·s} over the first {@code limbs} primes, left in NTT form, for callers that read
   * only a few coefficients (see {@code CoefficientExtractor}) instead of inverting every limb.
   */
  public static Plaintext decryptToNtt(Ciphertext ciphertext, SecretKey key, int limbs) {
    Parameters p = key.parameters();
    if (!p.equals(ciphertext.parameters())) {
      throw new IllegalArgumentException("ciphertext and key have different parameters");
    }
    if (limbs < 1 || limbs > ciphertext.limbCount()) {
      throw new IllegalArgumentException(
          "limbs must be in [1, " + ciphertext.limbCount() + "], was " + limbs);
    }
    List<Modulus> moduli = p.moduli().subList(0, limbs);
    RnsPoly m = ciphertext.c1().firstLimbs(limbs);
    m.multiplyInPlace(key.ntt(), moduli);
    m.addInPlace(ciphertext.c0(), moduli);
    return new Plaintext(m, ciphertext.scale());
  }

  /** Decrypts every limb of the ciphertext. */
  public static Plaintext decrypt(Ciphertext ciphertext, SecretKey key) {
    return decrypt(ciphertext, key, ciphertext.limbCount());
  }
}
