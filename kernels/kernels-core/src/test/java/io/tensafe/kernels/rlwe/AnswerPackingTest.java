package io.tensafe.kernels.rlwe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerPacking;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Packing answers with automorphisms and key switching (ADR 0032). */
class AnswerPackingTest {
  private final Parameters p;
  private final SecureRandom random = TestRandoms.seeded(2026_11_26);
  private final SecretKey sk;
  private final GaloisKeys keys;
  private final BigInteger q;

  AnswerPackingTest() throws Exception {
    p = Parameters.of(new ParameterSpec(12, List.of(54, 54), 30));
    sk = KeyGenerator.secretKey(p, random);
    // every level down to outputs 1 apart, beyond what a session's keys cover
    keys =
        GaloisKeys.generate(
            sk,
            java.util.stream.IntStream.rangeClosed(1, p.logN())
                .map(j -> (1 << j) + 1)
                .boxed()
                .toList(),
            random);
    q =
        BigInteger.valueOf(p.moduli().get(0).value())
            .multiply(BigInteger.valueOf(p.moduli().get(1).value()));
  }

  /** A secret-key encryption of the signed integers {@code m}, in coefficient form. */
  private long[][][] encrypt(BigInteger[] m) {
    long[][] limbs = new long[2][p.ringDegree()];
    for (int l = 0; l < 2; l++) {
      BigInteger ql = BigInteger.valueOf(p.moduli().get(l).value());
      for (int i = 0; i < m.length; i++) {
        limbs[l][i] = m[i].mod(ql).longValueExact();
      }
    }
    RnsPoly poly = RnsPoly.wrap(limbs, false);
    poly.toNttInPlace(p.ntts());
    Ciphertext ct = Encryptor.encrypt(new Plaintext(poly, 1.0), sk, random);
    RnsPoly c0 = ct.c0().copy();
    RnsPoly c1 = ct.c1().copy();
    c0.toCoefficientsInPlace(p.ntts());
    c1.toCoefficientsInPlace(p.ntts());
    return new long[][][] {{c0.limb(0), c0.limb(1)}, {c1.limb(0), c1.limb(1)}};
  }

  /** {@code c0 + c1·s} centred in (−Q/2, Q/2]. */
  private BigInteger[] decrypt(long[][][] ct) {
    BigInteger[] out = new BigInteger[p.ringDegree()];
    long[][] phase = new long[2][];
    for (int l = 0; l < 2; l++) {
      Modulus ql = p.moduli().get(l);
      long[] c1 = ct[1][l].clone();
      p.ntts().get(l).forwardInPlace(c1);
      long[] s = sk.ntt().limb(l);
      for (int i = 0; i < c1.length; i++) {
        c1[i] = ql.mul(c1[i], s[i]);
      }
      p.ntts().get(l).inverseInPlace(c1);
      for (int i = 0; i < c1.length; i++) {
        c1[i] = ql.add(c1[i], ct[0][l][i]);
      }
      phase[l] = c1;
    }
    BigInteger q0 = BigInteger.valueOf(p.moduli().get(0).value());
    BigInteger q1 = BigInteger.valueOf(p.moduli().get(1).value());
    BigInteger inv = q0.modInverse(q1);
    for (int i = 0; i < out.length; i++) {
      BigInteger r0 = BigInteger.valueOf(phase[0][i]);
      BigInteger t = BigInteger.valueOf(phase[1][i]).subtract(r0).multiply(inv).mod(q1);
      BigInteger v = r0.add(q0.multiply(t));
      out[i] = v.compareTo(q.shiftRight(1)) > 0 ? v.subtract(q) : v;
    }
    return out;
  }

  private BigInteger uniform(SplittableRandom r, int bits) {
    return new BigInteger(bits, new java.util.Random(r.nextLong()))
        .subtract(BigInteger.ONE.shiftLeft(bits - 1));
  }

  @Test
  void packedLeaves_decryptToEveryLeafsOutputs_andTheSwitchingNoiseStaysInItsBound() {
    int spacing = 64;
    int leaves = 24;
    SplittableRandom r = new SplittableRandom(7);
    List<long[][][]> cts = new ArrayList<>();
    List<BigInteger[]> messages = new ArrayList<>();
    for (int t = 0; t < leaves; t++) {
      BigInteger[] m = new BigInteger[p.ringDegree()];
      for (int i = 0; i < m.length; i++) {
        // outputs near the message bound, and large values everywhere else that must not leak in
        m[i] = uniform(r, i % spacing == 0 ? 100 : 104);
      }
      messages.add(m);
      cts.add(encrypt(m));
    }
    long[][][] packed = new AnswerPacking(keys).pack(cts, spacing);
    BigInteger[] phase = decrypt(packed);
    double worst = 0;
    for (int t = 0; t < leaves; t++) {
      for (int i = 0; i < p.ringDegree() / spacing; i++) {
        int at = AnswerPacking.position(i, t, spacing, leaves);
        double error = phase[at].subtract(messages.get(t)[i * spacing]).doubleValue();
        worst = Math.max(worst, Math.abs(error));
      }
    }
    double bound = AnswerPacking.noiseBound(p, leaves) + 32 * 20;
    assertTrue(worst <= bound, "switching noise " + worst + " above its bound " + bound);
    assertTrue(worst > 0, "a packing with key switching carries some noise");
    System.out.printf(
        "packing %d leaves: worst output error 2^%.1f, bound 2^%.1f%n",
        leaves, Math.log(worst) / Math.log(2), Math.log(bound) / Math.log(2));
  }

  @Test
  void digits_areBalanced_andRebuildTheCoefficient() {
    KeySwitching switching = new KeySwitching(p);
    SplittableRandom r = new SplittableRandom(3);
    int n = p.ringDegree();
    long[] r0 = new long[n];
    long[] r1 = new long[n];
    BigInteger[] values = new BigInteger[n];
    for (int i = 0; i < n; i++) {
      BigInteger v =
          i == 0
              ? BigInteger.ZERO
              : i == 1
                  ? q.subtract(BigInteger.ONE)
                  : i == 2
                      ? q.shiftRight(1)
                      : new BigInteger(110, new java.util.Random(r.nextLong())).mod(q);
      values[i] = v;
      r0[i] = v.mod(BigInteger.valueOf(p.moduli().get(0).value())).longValueExact();
      r1[i] = v.mod(BigInteger.valueOf(p.moduli().get(1).value())).longValueExact();
    }
    long[][] digits = switching.digits(r0, r1);
    for (int i = 0; i < n; i++) {
      BigInteger sum = BigInteger.ZERO;
      for (int t = 0; t < GaloisKeys.DIGITS; t++) {
        assertTrue(Math.abs(digits[t][i]) <= 1L << 17, "digit " + digits[t][i]);
        sum = sum.add(BigInteger.valueOf(digits[t][i]).shiftLeft(t * GaloisKeys.DIGIT_BITS));
      }
      assertEquals(values[i], sum.mod(q), "coefficient " + i);
    }
  }

  @Test
  void automorphism_isARingMap_andKeySwitchingKeepsThePhase() {
    SplittableRandom r = new SplittableRandom(11);
    BigInteger[] m = new BigInteger[p.ringDegree()];
    for (int i = 0; i < m.length; i++) {
      m[i] = uniform(r, 60);
    }
    long[][][] ct = encrypt(m);
    int k = 5;
    long[][][] switched = new KeySwitching(p).apply(ct, k, keys);
    BigInteger[] phase = decrypt(switched);
    int n = p.ringDegree();
    double worst = 0;
    for (int i = 0; i < n; i++) {
      int j = (int) (((long) i * k) % (2 * n));
      BigInteger expected = j < n ? m[i] : m[i].negate();
      worst = Math.max(worst, Math.abs(phase[j % n].subtract(expected).doubleValue()));
    }
    assertTrue(worst < GaloisKeys.noiseBound(p) + 40, "error " + worst);
  }

  @Test
  void galoisKeys_travelAsTheirPublicParts_andMalformedOnesAreRefused() throws Exception {
    GaloisKeys session = GaloisKeys.generate(sk, GaloisKeys.packingElements(p), random);
    byte[] bytes = GaloisKeysCodec.toBytes(session);
    assertEquals(EncodingHeader.SIZE + 1 + 8 * GaloisKeysCodec.bytesPerElement(p), bytes.length);
    GaloisKeys read = GaloisKeysCodec.fromBytes(bytes, p);
    assertEquals(session.elements(), read.elements());
    for (int k : session.elements()) {
      for (int t = 0; t < GaloisKeys.DIGITS; t++) {
        for (int l = 0; l < 2; l++) {
          assertArrayEquals(session.key(k).a()[t][l], read.key(k).a()[t][l]);
          assertArrayEquals(session.key(k).b()[t][l], read.key(k).b()[t][l]);
        }
      }
    }
    byte[] shorter = java.util.Arrays.copyOf(bytes, bytes.length - 1);
    assertThrows(MalformedEncodingException.class, () -> GaloisKeysCodec.fromBytes(shorter, p));
    byte[] tooMany = bytes.clone();
    tooMany[EncodingHeader.SIZE] = (byte) (p.logN() + 1);
    assertThrows(MalformedEncodingException.class, () -> GaloisKeysCodec.fromBytes(tooMany, p));
    byte[] even = bytes.clone();
    even[EncodingHeader.SIZE + 4] = 4; // the first element, big-endian: 4
    assertThrows(MalformedEncodingException.class, () -> GaloisKeysCodec.fromBytes(even, p));
    byte[] unreduced = bytes.clone();
    java.util.Arrays.fill(
        unreduced, EncodingHeader.SIZE + 1 + 36, EncodingHeader.SIZE + 1 + 44, (byte) -1);
    assertThrows(MalformedEncodingException.class, () -> GaloisKeysCodec.fromBytes(unreduced, p));
  }

  @Test
  void elementsOutsideTheGroup_orMissingKeys_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> GaloisKeys.generate(sk, List.of(4), random));
    GaloisKeys one = GaloisKeys.generate(sk, List.of(3), random);
    assertThrows(IllegalArgumentException.class, () -> one.key(5));
    assertThrows(
        IllegalArgumentException.class,
        () -> new AnswerPacking(keys).pack(List.of(encrypt(zeros()), encrypt(zeros())), 1));
  }

  private BigInteger[] zeros() {
    BigInteger[] m = new BigInteger[p.ringDegree()];
    java.util.Arrays.fill(m, BigInteger.ZERO);
    return m;
  }
}
