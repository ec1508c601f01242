package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;

/**
 * A ternary RLWE secret key, held in NTT form over every prime of its parameters.
 *
 * <p>Ownership: in hosted mode the node that generated it; in private mode the client. The key
 * never leaves its owner: its values are read outside this package only by {@link
 * #copyForOwnBackend}, which hands them to the owner's own compute backend (the node's GPU in
 * hosted mode), and no {@code toString} shows them.
 */
public final class SecretKey {
  private final Parameters parameters;
  private final RnsPoly ntt;
  private final long[][] nttShoup;

  SecretKey(Parameters parameters, RnsPoly ntt) {
    this.parameters = parameters;
    this.ntt = ntt;
    this.nttShoup = new long[ntt.limbCount()][];
    for (int l = 0; l < nttShoup.length; l++) {
      nttShoup[l] = parameters.moduli().get(l).shoupPrecomputeAll(ntt.limb(l));
    }
  }

  /** Shoup companions of the key's NTT values modulo prime {@code limb}. */
  long[] nttShoup(int limb) {
    return nttShoup[limb];
  }

  /**
   * Multiplies {@code values} (NTT form modulo prime {@code limb}) by the key in place: the key
   * owner's decryptions of answer formats built above this package use it, and the key's values
   * never leave this object.
   */
  public void multiplyInPlace(long[] values, int limb) {
    io.tensafe.kernels.ring.Modulus q = parameters.moduli().get(limb);
    long[] s = ntt.limb(limb);
    long[] sShoup = nttShoup[limb];
    if (values.length != s.length) {
      throw new IllegalArgumentException("values have " + values.length + " coefficients");
    }
    for (int k = 0; k < values.length; k++) {
      values[k] = q.mulShoup(values[k], s[k], sShoup[k]);
    }
  }

  public Parameters parameters() {
    return parameters;
  }

  RnsPoly ntt() {
    return ntt;
  }

  /**
   * Copies of the key's NTT values modulo prime {@code limb} (row 0) and their Shoup companions
   * (row 1), for the key owner's own backend, which computes with them and must not pass them on.
   */
  public long[][] copyForOwnBackend(int limb) {
    return new long[][] {ntt.limb(limb).clone(), nttShoup[limb].clone()};
  }

  @Override
  public String toString() {
    return "SecretKey[" + parameters.fingerprint() + "]";
  }
}
