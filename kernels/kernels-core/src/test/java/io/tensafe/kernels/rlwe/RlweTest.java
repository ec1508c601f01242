package io.tensafe.kernels.rlwe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.security.SecureRandom;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Encryption round trips in both key modes, and homomorphic ops against plaintext arithmetic. */
class RlweTest {
  private static final double DELTA = 0x1p30;

  private static Parameters parameters(int logN, List<Integer> bits) throws Exception {
    return Parameters.of(new ParameterSpec(logN, bits, 25));
  }

  private static double[] randomValues(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] v = new double[count];
    for (int i = 0; i < count; i++) {
      v[i] = random.nextDouble(-1, 1);
    }
    return v;
  }

  private static double maxError(double[] expected, double[] actual) {
    double max = 0;
    for (int i = 0; i < expected.length; i++) {
      max = Math.max(max, Math.abs(expected[i] - actual[i]));
    }
    return max;
  }

  @Test
  void secretKeyEncryption_roundTrip_recoversValuesWithinNoise() throws Exception {
    Parameters p = parameters(12, List.of(54, 54));
    SecureRandom random = TestRandoms.seeded(1);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    double[] values = randomValues(p.ringDegree(), 2);
    Ciphertext ct = Encryptor.encrypt(CoefficientEncoder.encode(values, DELTA, p, 2), sk, random);
    double[] decoded = CoefficientEncoder.decode(Decryptor.decrypt(ct, sk), p);
    // Rounding (0.5) plus an error of at most ERROR_BOUND, in units of 1/Δ.
    assertTrue(maxError(values, decoded) <= (Samplers.ERROR_BOUND + 0.5) / DELTA);
    double[] oneLimb = CoefficientEncoder.decode(Decryptor.decrypt(ct, sk, 1), p);
    assertTrue(maxError(values, oneLimb) <= (Samplers.ERROR_BOUND + 0.5) / DELTA);
    // Without the key, c0 alone must look nothing like the message.
    RnsPoly c0 = ct.c0().copy();
    c0.toCoefficientsInPlace(p.ntts());
    double[] leaked = CoefficientEncoder.decode(new Plaintext(c0, DELTA), p);
    assertTrue(maxError(values, leaked) > 1e6, "c0 reveals the message");
  }

  @Test
  void secretKeyEncryption_c1_isTheExpansionOfItsSeed() throws Exception {
    Parameters p = parameters(11, List.of(54));
    SecureRandom random = TestRandoms.seeded(3);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    Ciphertext ct =
        Encryptor.encrypt(CoefficientEncoder.encode(new double[] {1}, DELTA, p, 1), sk, random);
    byte[] seed = ct.c1Seed().orElseThrow();
    RnsPoly expanded =
        Samplers.uniformFromSeed(seed, Ciphertext.C1_SEED_DOMAIN, p.moduli(), p.ringDegree());
    assertEquals(expanded, ct.c1());
    assertFalse(
        Evaluator.dropLimbs(ct, 1).c1Seed().isPresent(), "derived ciphertexts carry no seed");
  }

  @Test
  void publicKeyEncryption_roundTrip_recoversValuesWithinNoise() throws Exception {
    Parameters p = parameters(12, List.of(54, 54));
    SecureRandom random = TestRandoms.seeded(4);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    PublicKey pk = KeyGenerator.publicKey(sk, random);
    double[] values = randomValues(p.ringDegree(), 5);
    Ciphertext ct = Encryptor.encrypt(CoefficientEncoder.encode(values, DELTA, p, 2), pk, random);
    double error = maxError(values, CoefficientEncoder.decode(Decryptor.decrypt(ct, sk), p));
    // e0 + e1·s + e·u: about 6σ·sqrt(4N/3) ≈ 1.4e3 at N = 2^12; allow 1e4/Δ ≈ 1e-5.
    assertTrue(error < 1e4 / DELTA, "error " + error);
  }

  @Test
  void encryptCoefficients_coefficientFormMessage_decryptsToIt() throws Exception {
    Parameters p = parameters(12, List.of(54, 54));
    SecureRandom random = TestRandoms.seeded(18);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    PublicKey pk = KeyGenerator.publicKey(sk, random);
    double[] values = randomValues(p.ringDegree(), 19);
    Plaintext message = CoefficientEncoder.encode(values, DELTA, p, 2);
    message.poly().toCoefficientsInPlace(p.ntts());
    Ciphertext ct = Encryptor.encryptCoefficients(message.poly(), DELTA, pk, random);
    double error = maxError(values, CoefficientEncoder.decode(Decryptor.decrypt(ct, sk), p));
    assertTrue(error < 1e4 / DELTA, "error " + error);
  }

  @Test
  void multiplyPlain_randomPolynomials_matchesNegacyclicProduct() throws Exception {
    Parameters p = parameters(11, List.of(54));
    double delta = 0x1p20; // product scale 2^40 with |coefficients| <= 2048 stays below q/2
    SecureRandom random = TestRandoms.seeded(6);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    int n = p.ringDegree();
    double[] x = randomValues(n, 7);
    double[] a = randomValues(n, 8);
    Ciphertext ct = Encryptor.encrypt(CoefficientEncoder.encode(x, delta, p, 1), sk, random);
    Ciphertext product = Evaluator.multiplyPlain(ct, CoefficientEncoder.encode(a, delta, p, 1));
    assertEquals(delta * delta, product.scale());
    double[] decoded = CoefficientEncoder.decode(Decryptor.decrypt(product, sk), p);
    double[] expected = new double[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        int k = i + j;
        if (k < n) {
          expected[k] += x[i] * a[j];
        } else {
          expected[k - n] -= x[i] * a[j];
        }
      }
    }
    // Rounding of x and a (0.5/Δ each, times sum |other| <= n) and noise e·a.
    assertTrue(
        maxError(expected, decoded) < 2.0 * n / delta, "error " + maxError(expected, decoded));
  }

  @Test
  void productDecryption_fused_equalsMultiplyPlainThenDecrypt() throws Exception {
    Parameters p = parameters(11, List.of(54));
    SecureRandom random = TestRandoms.seeded(15);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    Ciphertext ct =
        Encryptor.encrypt(
            CoefficientEncoder.encode(randomValues(300, 16), DELTA, p, 1), sk, random);
    Plaintext weights = CoefficientEncoder.encode(randomValues(300, 17), DELTA, p, 1);
    long[] fused = new long[p.ringDegree()];
    ProductDecryption.multiplyPlainDecryptInto(
        ct, new ShoupPlaintext(weights, p.moduli()), sk, fused);
    Plaintext unfused = Decryptor.decryptToNtt(Evaluator.multiplyPlain(ct, weights), sk, 1);
    assertArrayEquals(unfused.poly().limb(0), fused);
  }

  @Test
  void addAndAddPlain_matchPlaintextSums() throws Exception {
    Parameters p = parameters(11, List.of(54));
    SecureRandom random = TestRandoms.seeded(9);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    double[] x = randomValues(100, 10);
    double[] y = randomValues(100, 11);
    Ciphertext cx = Encryptor.encrypt(CoefficientEncoder.encode(x, DELTA, p, 1), sk, random);
    Ciphertext cy = Encryptor.encrypt(CoefficientEncoder.encode(y, DELTA, p, 1), sk, random);
    double[] sum = CoefficientEncoder.decode(Decryptor.decrypt(Evaluator.add(cx, cy), sk), p);
    double[] plainSum =
        CoefficientEncoder.decode(
            Decryptor.decrypt(
                Evaluator.addPlain(cx, CoefficientEncoder.encode(y, DELTA, p, 1)), sk),
            p);
    for (int i = 0; i < 100; i++) {
      assertEquals(x[i] + y[i], sum[i], 50 / DELTA);
      assertEquals(x[i] + y[i], plainSum[i], 30 / DELTA);
    }
  }

  @Test
  void rescale_afterProduct_dividesScaleByLastPrimeAndKeepsValues() throws Exception {
    Parameters p = parameters(12, List.of(45, 30, 30));
    SecureRandom random = TestRandoms.seeded(12);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    double[] x = randomValues(16, 13);
    double[] a = new double[] {0.5}; // the constant polynomial 0.5
    Ciphertext ct = Encryptor.encrypt(CoefficientEncoder.encode(x, DELTA, p, 3), sk, random);
    Ciphertext product = Evaluator.multiplyPlain(ct, CoefficientEncoder.encode(a, DELTA, p, 3));
    Ciphertext rescaled = Evaluator.rescale(product);
    assertEquals(2, rescaled.limbCount());
    long qLast = p.moduli().get(2).value();
    assertEquals(DELTA * DELTA / qLast, rescaled.scale(), 1e-6 * rescaled.scale());
    double[] decoded = CoefficientEncoder.decode(Decryptor.decrypt(rescaled, sk), p);
    for (int i = 0; i < x.length; i++) {
      assertEquals(0.5 * x[i], decoded[i], 1e-6);
    }
  }

  @Test
  void operations_mismatchedInputs_refused() throws Exception {
    Parameters p = parameters(11, List.of(54));
    Parameters other = parameters(12, List.of(54));
    SecureRandom random = TestRandoms.seeded(14);
    SecretKey sk = KeyGenerator.secretKey(p, random);
    Ciphertext ct =
        Encryptor.encrypt(CoefficientEncoder.encode(new double[] {1}, DELTA, p, 1), sk, random);
    assertThrows(
        IllegalArgumentException.class,
        () -> Decryptor.decrypt(ct, KeyGenerator.secretKey(other, random)));
    assertThrows(IllegalArgumentException.class, () -> Evaluator.rescale(ct));
    Ciphertext otherScale =
        Encryptor.encrypt(CoefficientEncoder.encode(new double[] {1}, 2 * DELTA, p, 1), sk, random);
    assertThrows(IllegalArgumentException.class, () -> Evaluator.add(ct, otherScale));
    assertThrows(
        IllegalArgumentException.class,
        () -> CoefficientEncoder.encode(new double[] {1e10}, 0x1p60, p, 1));
  }
}
