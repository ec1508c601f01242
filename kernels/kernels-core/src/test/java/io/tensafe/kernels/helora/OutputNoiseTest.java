package io.tensafe.kernels.helora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/** Round two's flooding and DP noise as residues: exact conversions, the asked ranges. */
class OutputNoiseTest {
  private final Parameters p = PrivateClient.parametersFor(1536);

  private BigInteger centred(long[] residues) {
    BigInteger q0 = BigInteger.valueOf(p.moduli().get(0).value());
    BigInteger q1 = BigInteger.valueOf(p.moduli().get(1).value());
    BigInteger t =
        BigInteger.valueOf(residues[1])
            .subtract(BigInteger.valueOf(residues[0]))
            .multiply(q0.modInverse(q1))
            .mod(q1);
    BigInteger x = BigInteger.valueOf(residues[0]).add(t.multiply(q0));
    BigInteger q = q0.multiply(q1);
    return x.compareTo(q.shiftRight(1)) > 0 ? x.subtract(q) : x;
  }

  @Test
  void residueOf_isExact_forSmallHugeAndNegativeValues() {
    Modulus q = p.moduli().getFirst();
    BigInteger modulus = BigInteger.valueOf(q.value());
    for (double v : new double[] {0, 1.4, -2.6, 0x1p61, -0x1p70 * 1.25, 0x1p100 * 1.75}) {
      BigInteger exact =
          new BigDecimal(v).setScale(0, java.math.RoundingMode.HALF_UP).toBigInteger();
      if (Math.abs(v) >= 0x1p62) {
        exact = new BigDecimal(v).toBigInteger(); // an integer already
      }
      assertEquals(exact.mod(modulus).longValue(), OutputNoise.residueOf(v, q), "value " + v);
    }
  }

  @Test
  void flooding_staysWithinItsBound_andCoversIt() {
    BigInteger bound = BigInteger.ONE.shiftLeft(78).add(BigInteger.valueOf(12345));
    long[][] r = OutputNoise.residues(p, 2000, bound, 0, TestRandoms.seeded(3));
    int beyondHalf = 0;
    for (long[] residues : r) {
      BigInteger v = centred(residues);
      assertTrue(v.abs().compareTo(bound) <= 0, "flood " + v);
      beyondHalf += v.abs().compareTo(bound.shiftRight(1)) > 0 ? 1 : 0;
    }
    assertTrue(Math.abs(beyondHalf - 1000) < 120, "uniform over [-F, F]: " + beyondHalf);
  }

  @Test
  void dpNoise_hasTheAskedDeviation_aboveTheFlooding() {
    double sigma = 0x1p90;
    long[][] r =
        OutputNoise.residues(p, 4000, BigInteger.ONE.shiftLeft(60), sigma, TestRandoms.seeded(4));
    double sumSquares = 0;
    for (long[] residues : r) {
      double v = centred(residues).doubleValue() / sigma;
      sumSquares += v * v;
    }
    assertEquals(1, Math.sqrt(sumSquares / r.length), 0.05);
  }
}
