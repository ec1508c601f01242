package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.ring.Modulus;
import java.util.List;

/**
 * An NTT-form plaintext with the Shoup companion of every value, for plaintexts that multiply many
 * ciphertexts (LoRA weights, prepared once per adapter).
 */
public final class ShoupPlaintext {
  private final Plaintext plaintext;
  private final long[][] shoup;

  /** Precomputes the companions of {@code plaintext}, which must be in NTT form. */
  public ShoupPlaintext(Plaintext plaintext, List<Modulus> moduli) {
    if (!plaintext.poly().isNtt()) {
      throw new IllegalArgumentException("plaintext must be in NTT form");
    }
    this.plaintext = plaintext;
    this.shoup = new long[plaintext.limbCount()][];
    for (int l = 0; l < shoup.length; l++) {
      shoup[l] = moduli.get(l).shoupPrecomputeAll(plaintext.poly().limb(l));
    }
  }

  public Plaintext plaintext() {
    return plaintext;
  }

  /**
   * The Shoup companions of limb {@code limb}, {@code ⌊w·2^64/q⌋} per coefficient w: for products
   * with {@code Modulus.mulShoup}; the caller reads them and never writes them.
   */
  public long[] shoup(int limb) {
    return shoup[limb];
  }
}
