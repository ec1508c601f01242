package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The vector pointwise loops give the scalar reference's words (and BigInteger's values). */
class PointwiseLoopsTest {
  private static long[] residues(SplittableRandom r, int n, long q) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      v[i] = i % 7 == 0 ? q - 1 - (i % 3) : r.nextLong(q); // the top of the range, too
    }
    return v;
  }

  private static long[] shoup(Modulus q, long[] w) {
    long[] s = new long[w.length];
    for (int i = 0; i < w.length; i++) {
      s[i] = q.shoupPrecompute(w[i]);
    }
    return s;
  }

  @ParameterizedTest
  @ValueSource(ints = {30, 54, 60})
  void vectorLoops_equalScalarAndBigInteger(int bits) {
    Modulus q = Modulus.of(Primes.nttPrimes(bits, 2048, 1).getFirst());
    SplittableRandom r = new SplittableRandom(bits);
    int n = 2048 + 3; // a scalar tail after the lanes
    long[] c0 = residues(r, n, q.value());
    long[] c1 = residues(r, n, q.value());
    long[] p = residues(r, n, q.value());
    long[] s = residues(r, n, q.value());
    long[] expected = new long[n];
    for (int i = 0; i < n; i++) {
      expected[i] = q.add(q.mul(c0[i], p[i]), q.mul(q.mul(c1[i], p[i]), s[i]));
    }
    long[] vector = new long[n];
    int end =
        VectorPointwise.decryptedProduct(q.value(), c0, c1, p, shoup(q, p), s, shoup(q, s), vector);
    for (int i = end; i < n; i++) {
      vector[i] = expected[i]; // the tail is the scalar loop's
    }
    assertArrayEquals(expected, vector);
    long[] dispatched = new long[n];
    PointwiseLoops.decryptedProduct(q, c0, c1, p, shoup(q, p), s, shoup(q, s), dispatched);
    assertArrayEquals(expected, dispatched);

    BigInteger sum = BigInteger.ZERO;
    for (int i = 0; i < n; i++) {
      sum = sum.add(BigInteger.valueOf(c0[i]).multiply(BigInteger.valueOf(p[i])));
    }
    long exact = sum.mod(BigInteger.valueOf(q.value())).longValueExact();
    assertEquals(exact, PointwiseLoops.innerProduct(q, c0, p, shoup(q, p)));
    int lanes = n - n % LaneMath.lanes();
    BigInteger head = BigInteger.ZERO;
    for (int i = 0; i < lanes; i++) {
      head = head.add(BigInteger.valueOf(c0[i]).multiply(BigInteger.valueOf(p[i])));
    }
    assertEquals(
        head.mod(BigInteger.valueOf(q.value())).longValueExact(),
        VectorPointwise.innerProduct(q.value(), c0, p, shoup(q, p), lanes) % q.value());
  }
}
