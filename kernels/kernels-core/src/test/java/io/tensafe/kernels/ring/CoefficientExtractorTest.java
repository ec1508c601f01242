package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CoefficientExtractorTest {

  @ParameterizedTest
  @CsvSource({"16,30", "2048,54", "4096,60"})
  void extract_everyProbedPosition_equalsInverseNttCoefficient(int n, int bits) {
    NegacyclicNtt ntt = NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(bits, n, 1).getFirst()), n);
    SplittableRandom random = new SplittableRandom(n);
    long[] values = new long[n];
    for (int i = 0; i < n; i++) {
      values[i] = random.nextLong(ntt.modulus().value());
    }
    long[] coefficients = values.clone();
    ntt.inverseInPlace(coefficients);
    for (int position : new int[] {0, 1, n / 2, n - 1, random.nextInt(n)}) {
      assertEquals(coefficients[position], new CoefficientExtractor(ntt, position).extract(values));
    }
    assertThrows(IllegalArgumentException.class, () -> new CoefficientExtractor(ntt, n));
  }
}
