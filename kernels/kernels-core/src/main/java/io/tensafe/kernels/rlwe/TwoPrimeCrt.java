package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;

/**
 * Garner's reconstruction for {@code Q = q0·q1}: a value {@code c} in [0, Q) with residues {@code
 * (r0, r1)} is {@code r0 + q0·t}, {@code t = (r1 - r0)·q0^-1 mod q1} in [0, q1).
 */
final class TwoPrimeCrt {
  private final Modulus q0;
  private final Modulus q1;
  private final long q0InverseModQ1;
  private final long q0InverseShoup;

  TwoPrimeCrt(Parameters p) {
    if (p.limbCount() != 2) {
      throw new IllegalArgumentException("two primes, not " + p.limbCount());
    }
    this.q0 = p.moduli().get(0);
    this.q1 = p.moduli().get(1);
    this.q0InverseModQ1 = q1.pow(q1.reduce(q0.value()), q1.value() - 2);
    this.q0InverseShoup = q1.shoupPrecompute(q0InverseModQ1);
  }

  Modulus q0() {
    return q0;
  }

  Modulus q1() {
    return q1;
  }

  /** t with {@code c = r0 + q0·t}, in [0, q1). */
  long quotient(long r0, long r1) {
    return q1.mulShoup(q1.sub(r1, q1.reduce(r0)), q0InverseModQ1, q0InverseShoup);
  }
}
