package io.tensafe.kernels.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.NttImplementation;
import io.tensafe.kernels.ring.Primes;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CPU backend's hosted loops on FMA lanes of doubles (primes below 2^50) give exactly the
 * residues of its 64-bit loops: the same weights, once with a vector NTT (FMA lanes) and once with
 * a scalar one (64-bit words), on random data and on data at the ranges' ends. The build runs this
 * on four lanes too ({@code -XX:UseAVX=2}).
 */
class CpuBackendFmaTest {

  @ParameterizedTest(name = "N = 2^{0}, {1} tokens, {2} plaintexts, {3} outputs, {4}-bit q")
  @CsvSource({
    "11, 3, 32, 1, 50",
    "11, 2, 3, 6, 50",
    "11, 2, 2, 16, 50",
    "12, 2, 3, 2, 49",
    "13, 1, 2, 40, 40",
    "4, 2, 2, 3, 30"
  })
  void fmaLanes_giveThe64BitLoopsResidues(
      int logN, int tokens, int plaintexts, int outputs, int bits) {
    int n = 1 << logN;
    Modulus q = Modulus.of(Primes.nttPrimes(bits, n, 1).getFirst());
    NegacyclicNtt vector = NegacyclicNtt.of(q, n, NttImplementation.VECTOR);
    NegacyclicNtt scalar = NegacyclicNtt.of(q, n, NttImplementation.SCALAR);
    assertEquals("fma-double", vector.arithmetic());
    long seed = logN * 31L + bits;
    HostedLoraWeights onLanes =
        HeBackendContractTest.randomWeights(vector, plaintexts, outputs, seed);
    HostedLoraWeights onWords =
        HeBackendContractTest.randomWeights(scalar, plaintexts, outputs, seed);
    for (long[][] data : new long[][][] {random(tokens, vector, 5), extremes(tokens, q, n)}) {
      long[][] c1 = random(tokens, vector, 6);
      HostedLoraOutput expected = hostedLora(onWords, data, c1);
      HostedLoraOutput actual = hostedLora(onLanes, data, c1);
      for (int t = 0; t < tokens; t++) {
        assertArrayEquals(expected.residues()[t], actual.residues()[t], "token " + t);
      }
    }
  }

  /** The CPU backend's hosted unit on copies (it overwrites the messages). */
  private static HostedLoraOutput hostedLora(
      HostedLoraWeights weights, long[][] messages, long[][] c1) {
    return new CpuBackend()
        .hostedLora(
            weights, HeBackendContractTest.copyRows(messages), HeBackendContractTest.copyRows(c1));
  }

  private static long[][] random(int rows, NegacyclicNtt ntt, long seed) {
    return HeBackendContractTest.randomRows(rows, ntt, seed);
  }

  /** Messages of q − 1 and 0 alternately (the forward NTT's widest inputs). */
  private static long[][] extremes(int rows, Modulus q, int n) {
    long[][] data = new long[rows][n];
    for (long[] row : data) {
      Arrays.setAll(row, i -> i % 2 == 0 ? q.value() - 1 : 0);
    }
    return data;
  }
}
