package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;

/**
 * A ternary RLWE secret key, held in NTT form over every prime of its parameters.
 *
 * <p>Ownership: in hosted mode the node that generated it; in private mode the client. The key
 * never leaves its owner: it has no accessor for its values outside this package, and no {@code
 * toString} that shows them.
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

  public Parameters parameters() {
    return parameters;
  }

  RnsPoly ntt() {
    return ntt;
  }

  @Override
  public String toString() {
    return "SecretKey[" + parameters.fingerprint() + "]";
  }
}
