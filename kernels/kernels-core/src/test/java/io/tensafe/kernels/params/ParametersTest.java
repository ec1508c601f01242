package io.tensafe.kernels.params;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.params.InvalidParametersException.Reason;
import io.tensafe.kernels.ring.Modulus;
import java.math.BigInteger;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ParametersTest {

  private static Reason reasonFor(ParameterSpec spec) {
    return assertThrows(InvalidParametersException.class, () -> Parameters.of(spec)).reason();
  }

  @ParameterizedTest
  @ValueSource(ints = {11, 12, 13, 14, 15, 16})
  void of_modulusJustOverTheTable_refusedAsInsecure(int logN) {
    int max = SecurityTable.maxLogQ128(logN);
    // 60-bit primes have log2 q > 59.99, so max/59 + 1 of them exceed the bound.
    List<Integer> bits = Collections.nCopies(max / 59 + 1, 60);
    InvalidParametersException e =
        assertThrows(
            InvalidParametersException.class,
            () -> Parameters.of(new ParameterSpec(logN, bits, 30)));
    assertEquals(Reason.INSECURE, e.reason());
    assertTrue(e.getMessage().contains("128-bit bound of " + max), e.getMessage());
  }

  @Test
  void of_smallestRingAtItsBound_accepted() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(11, List.of(54), 30));
    assertTrue(p.isSecure128());
    assertTrue(p.logQ() <= 54 && p.logQ() > 53, "logQ=" + p.logQ());
    Parameters two = Parameters.of(new ParameterSpec(12, List.of(54, 55), 30));
    assertTrue(two.logQ() <= 109);
  }

  @Test
  void ofInsecureForTesting_overTheTable_buildsButSaysInsecure() throws Exception {
    Parameters p = Parameters.ofInsecureForTesting(new ParameterSpec(11, List.of(60, 60), 30));
    assertFalse(p.isSecure128());
    assertTrue(p.toString().contains("INSECURE"));
  }

  @Test
  void ofInsecureForTesting_otherRulesStillApply() {
    assertThrows(
        InvalidParametersException.class,
        () -> Parameters.ofInsecureForTesting(new ParameterSpec(10, List.of(30), 20)));
  }

  @Test
  void of_eachBrokenRule_namesItsReason() {
    assertEquals(
        Reason.RING_DEGREE_OUT_OF_RANGE, reasonFor(new ParameterSpec(10, List.of(30), 20)));
    assertEquals(
        Reason.RING_DEGREE_OUT_OF_RANGE, reasonFor(new ParameterSpec(17, List.of(30), 20)));
    assertEquals(Reason.PRIME_COUNT_OUT_OF_RANGE, reasonFor(new ParameterSpec(14, List.of(), 20)));
    assertEquals(
        Reason.PRIME_COUNT_OUT_OF_RANGE,
        reasonFor(new ParameterSpec(16, Collections.nCopies(33, 30), 20)));
    assertEquals(Reason.PRIME_BITS_OUT_OF_RANGE, reasonFor(new ParameterSpec(14, List.of(61), 20)));
    assertEquals(Reason.PRIME_BITS_OUT_OF_RANGE, reasonFor(new ParameterSpec(14, List.of(19), 10)));
    assertEquals(Reason.SCALE_OUT_OF_RANGE, reasonFor(new ParameterSpec(14, List.of(40), 40)));
    assertEquals(Reason.SCALE_OUT_OF_RANGE, reasonFor(new ParameterSpec(14, List.of(40), 0)));
    // Only 2^(20-1)/2^17 = 4 candidates ≡ 1 mod 2^17 have 20 bits, far fewer than 30 primes.
    assertEquals(
        Reason.NOT_ENOUGH_PRIMES,
        reasonFor(new ParameterSpec(16, Collections.nCopies(30, 20), 10)));
  }

  @Test
  void of_repeatedBitSizes_givesDistinctNttFriendlyPrimes() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(14, List.of(60, 40, 40, 60), 40));
    List<Long> primes = p.moduli().stream().map(Modulus::value).toList();
    assertEquals(4, new HashSet<>(primes).size());
    for (int i = 0; i < primes.size(); i++) {
      long q = primes.get(i);
      assertTrue(BigInteger.valueOf(q).isProbablePrime(100));
      assertEquals(1, q % (2L << 14));
      assertEquals(List.of(60, 40, 40, 60).get(i), 64 - Long.numberOfLeadingZeros(q));
    }
    assertEquals(4, p.limbCount());
    assertEquals(4, p.ntts().size());
    assertEquals(Math.scalb(1.0, 40), p.scale());
  }

  @Test
  void of_sameSpecTwice_equalWithSameFingerprint() throws Exception {
    ParameterSpec spec = new ParameterSpec(12, List.of(50, 50), 25);
    Parameters a = Parameters.of(spec);
    Parameters b = Parameters.of(spec);
    assertEquals(a, b);
    assertEquals(a.fingerprint(), b.fingerprint());
    assertEquals(16, a.fingerprint().length());
    Parameters other = Parameters.of(new ParameterSpec(12, List.of(50, 50), 26));
    assertNotEquals(a.fingerprint(), other.fingerprint());
  }

  @Test
  void presets_every_buildsAsSecure() throws Exception {
    for (ParameterSpec preset :
        List.of(ParameterPresets.PROTOTYPE_BASELINE, ParameterPresets.HOSTED_LORA)) {
      assertTrue(Parameters.of(preset).isSecure128(), preset.toString());
    }
  }
}
