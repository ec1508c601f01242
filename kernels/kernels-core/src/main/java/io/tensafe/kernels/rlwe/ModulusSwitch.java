package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;

/**
 * Rounds a value held modulo {@code Q = q0·q1} (as its two residues) to {@code round(c·2^bits/Q)
 * mod 2^bits}. With {@code c = r0 + q0·t}, {@code t = (r1 - r0)·q0^-1 mod q1}, the result is {@code
 * round(t·2^bits/q1 + r0·2^bits/Q)}, computed in doubles: t's conversion and the products err by at
 * most {@code 2^-12} for bits ≤ 40 and primes below 2^61, so the result is within {@code 1/2 +
 * 2^-12} of the exact quotient.
 */
public final class ModulusSwitch {
  /** The most bits a value is switched down to. */
  public static final int MAX_BITS = 40;

  private final TwoPrimeCrt crt;
  private final double perT;
  private final double perR0;
  private final int bits;
  private final long mask;

  public ModulusSwitch(Parameters p, int bits) {
    if (p.limbCount() != 2 || bits < 1 || bits > MAX_BITS) {
      throw new IllegalArgumentException("switches two primes down to 1 to 40 bits");
    }
    this.crt = new TwoPrimeCrt(p);
    this.perT = Math.scalb(1.0, bits) / crt.q1().value();
    this.perR0 = perT / crt.q0().value();
    this.bits = bits;
    this.mask = (1L << bits) - 1;
  }

  public int bits() {
    return bits;
  }

  /** The switched value of the residues {@code (r0, r1)}, in [0, 2^bits). */
  public long apply(long r0, long r1) {
    long t = crt.quotient(r0, r1);
    double exact = t * perT + r0 * perR0;
    return ((long) Math.floor(exact + 0.5)) & mask;
  }
}
