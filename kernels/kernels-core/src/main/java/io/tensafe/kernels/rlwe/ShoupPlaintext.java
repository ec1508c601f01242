package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.ring.Modulus;

/**
 * An NTT-form plaintext with the Shoup companion of every value, for plaintexts that multiply many
 * ciphertexts (LoRA weights, prepared once per adapter).
 */
public final class ShoupPlaintext {
  private final Plaintext plaintext;
  private final long[][] shoup;

  /** Precomputes the companions of {@code plaintext}, which must be in NTT form. */
  public ShoupPlaintext(Plaintext plaintext, java.util.List<Modulus> moduli) {
    if (!plaintext.poly().isNtt()) {
      throw new IllegalArgumentException("plaintext must be in NTT form");
    }
    this.plaintext = plaintext;
    this.shoup = new long[plaintext.limbCount()][];
    for (int l = 0; l < shoup.length; l++) {
      long[] values = plaintext.poly().limb(l);
      long[] companions = new long[values.length];
      for (int i = 0; i < values.length; i++) {
        companions[i] = moduli.get(l).shoupPrecompute(values[i]);
      }
      shoup[l] = companions;
    }
  }

  public Plaintext plaintext() {
    return plaintext;
  }

  long[] shoup(int limb) {
    return shoup[limb];
  }
}
