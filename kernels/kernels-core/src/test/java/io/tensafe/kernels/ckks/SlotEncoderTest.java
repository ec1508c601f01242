package io.tensafe.kernels.ckks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Decryptor;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.Evaluator;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.SecretKey;
import java.security.SecureRandom;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SlotEncoderTest {
  private static final double DELTA = 0x1p30;

  private static double[] random(int count, long seed) {
    return new SplittableRandom(seed).doubles(count, -2, 2).toArray();
  }

  @Test
  void roundTrip_fullSlots_withinStatedBound() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(12, List.of(54), 25));
    double[] values = random(SlotEncoder.slotCount(p), 1);
    Plaintext pt = SlotEncoder.encode(values, DELTA, p, 1);
    pt.poly().toCoefficientsInPlace(p.ntts());
    double[] back = SlotEncoder.decode(pt, p);
    double bound = p.ringDegree() / (2 * DELTA) + 12 * 0x1p-53 * 4;
    for (int j = 0; j < values.length; j++) {
      assertEquals(values[j], back[j], bound, "slot " + j);
    }
  }

  @Test
  void slots_encryptedAndMultiplied_areMultipliedSlotWise() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(12, List.of(60), 25));
    SecureRandom random = TestRandoms.seeded(2);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    double delta = 0x1p24; // product scale 2^48 stays well inside a 60-bit prime
    double[] x = random(SlotEncoder.slotCount(p), 3);
    double[] a = random(SlotEncoder.slotCount(p), 4);
    Ciphertext ct = Encryptor.encrypt(SlotEncoder.encode(x, delta, p, 1), sk, random);
    Ciphertext product = Evaluator.multiplyPlain(ct, SlotEncoder.encode(a, delta, p, 1));
    double[] slots = SlotEncoder.decode(Decryptor.decrypt(product, sk), p);
    double worst = 0;
    for (int j = 0; j < slots.length; j++) {
      worst = Math.max(worst, Math.abs(x[j] * a[j] - slots[j]));
    }
    // Rounding of x and a (N/(2Δ) each, times |other| <= 2) plus noise: below 1e-3 here.
    assertTrue(worst < 1e-3, "worst slot error " + worst);
  }

  @Test
  void encode_tooManyValues_refused() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(11, List.of(54), 25));
    assertThrows(
        IllegalArgumentException.class, () -> SlotEncoder.encode(new double[1025], DELTA, p, 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> SlotEncoder.encode(new double[] {Double.NaN}, DELTA, p, 1));
  }
}
