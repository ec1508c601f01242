package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.Samplers;
import java.math.BigInteger;
import java.security.SecureRandom;

/**
 * What round two adds at each output of one answer, as residues modulo both primes: flooding
 * uniform in [-F, F] ({@link PrivateWeights#floodBound}) and, when asked, the DP noise {@code N(0,
 * σ²)} in the product's integer units. Both are expanded with AES-256-CTR from fresh 32-byte seeds
 * drawn from the node's CSPRNG, in longs (no big-number arithmetic per output).
 */
final class OutputNoise {
  private OutputNoise() {}

  /**
   * @param count outputs of the answer
   * @param floodBound F, at least 0, below 2^125
   * @param sigmaInUnits the DP noise's standard deviation in the product's integer units, or 0 for
   *     none
   * @return {@code [count][2]} reduced residues
   */
  static long[][] residues(
      Parameters p, int count, BigInteger floodBound, double sigmaInUnits, SecureRandom random) {
    long[] flood =
        Samplers.uniformBelowFromSeed(
            seed(random), floodBound.shiftLeft(1).add(BigInteger.ONE), count);
    double[] normals = sigmaInUnits > 0 ? Samplers.normalsFromSeed(seed(random), count) : null;
    long[][] out = new long[count][2];
    for (int l = 0; l < 2; l++) {
      Modulus q = p.moduli().get(l);
      long boundModQ = floodBound.mod(BigInteger.valueOf(q.value())).longValue();
      for (int i = 0; i < count; i++) {
        long v = q.sub(q.reduce128(flood[2 * i], flood[2 * i + 1]), boundModQ);
        if (normals != null) {
          v = q.add(v, residueOf(normals[i] * sigmaInUnits, q));
        }
        out[i][l] = v;
      }
    }
    return out;
  }

  /** {@code round(v) mod q} for a finite double: exact for |v| below 2^62, else m·2^e exactly. */
  static long residueOf(double v, Modulus q) {
    if (Math.abs(v) < 0x1p62) {
      long r = Math.round(v);
      return r >= 0 ? q.reduce(r) : q.negate(q.reduce(-r));
    }
    int exponent = Math.getExponent(v) - 52;
    long mantissa = (long) Math.scalb(v, -exponent); // exact: |mantissa| < 2^53
    long m = mantissa >= 0 ? q.reduce(mantissa) : q.negate(q.reduce(-mantissa));
    return q.mul(m, q.pow(2, exponent));
  }

  private static byte[] seed(SecureRandom random) {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    random.nextBytes(seed);
    return seed;
  }
}
