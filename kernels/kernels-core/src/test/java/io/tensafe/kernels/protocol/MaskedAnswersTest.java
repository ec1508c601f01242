package io.tensafe.kernels.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.ChiSquare;
import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.SecretKey;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Private mode's compact answers (ADR 0018): exact where read, switched, and their encoding. */
class MaskedAnswersTest {
  private static final int[] POSITIONS = {0, 5, 4095};
  private final Parameters p;
  private final SecureRandom random = TestRandoms.seeded(2026_11_24);
  private final SecretKey sk;
  private final PublicKey pk;

  MaskedAnswersTest() throws Exception {
    p = Parameters.of(new ParameterSpec(12, List.of(54, 54), 30));
    sk = KeyGenerator.secretKey(p, random);
    pk = KeyGenerator.publicKey(sk, random);
  }

  /** Round one's answer of one leaf (a packing of one): the products, re-randomised, masked. */
  private ShareAnswer share(
      List<Ciphertext> inputs, List<ShoupPlaintext> weights, int[] positions, long[][] masks) {
    return MaskedAnswers.sharePacked(
        p,
        MaskedAnswers.leaf(inputs, weights, positions, 0, pk, random),
        positions,
        masks,
        inputs.getFirst().scale() * weights.getFirst().plaintext().scale());
  }

  /** Round two's answer of one leaf, switched. */
  private SwitchedAnswer switched(
      List<Ciphertext> inputs, List<ShoupPlaintext> weights, int[] positions, long[][] additions) {
    return MaskedAnswers.switchedPacked(
        p,
        MaskedAnswers.leaf(inputs, weights, positions, 0, pk, random),
        positions,
        additions,
        inputs.getFirst().scale() * weights.getFirst().plaintext().scale());
  }

  private long[] randomSigned(long seed, long bound, int nonzero) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] v = new long[p.ringDegree()];
    for (int i = 0; i < nonzero; i++) {
      v[r.nextInt(v.length)] = r.nextLong(-bound, bound);
    }
    return v;
  }

  private RnsPoly ntt(long[] signed) {
    RnsPoly poly = RnsPoly.fromSigned(signed, p.moduli());
    poly.toNttInPlace(p.ntts());
    return poly;
  }

  /** {@code (Σ_j m_j·w_j)[k]} over the integers, negacyclic. */
  private static BigInteger product(List<long[]> m, List<long[]> w, int k) {
    BigInteger sum = BigInteger.ZERO;
    int n = m.getFirst().length;
    for (int j = 0; j < m.size(); j++) {
      for (int i = 0; i < n; i++) {
        long wi = w.get(j)[i];
        if (wi == 0) {
          continue;
        }
        int from = k - i;
        BigInteger term = BigInteger.valueOf(m.get(j)[Math.floorMod(from, n)]);
        term = term.multiply(BigInteger.valueOf(wi));
        sum = from >= 0 ? sum.add(term) : sum.subtract(term);
      }
    }
    return sum;
  }

  private BigInteger centred(long r0, long r1) {
    BigInteger q0 = BigInteger.valueOf(p.moduli().get(0).value());
    BigInteger q1 = BigInteger.valueOf(p.moduli().get(1).value());
    BigInteger q = q0.multiply(q1);
    BigInteger t =
        BigInteger.valueOf(r1).subtract(BigInteger.valueOf(r0)).multiply(q0.modInverse(q1)).mod(q1);
    BigInteger x = BigInteger.valueOf(r0).add(t.multiply(q0));
    return x.compareTo(q.shiftRight(1)) > 0 ? x.subtract(q) : x;
  }

  private long[][] residues(BigInteger[] values) {
    long[][] out = new long[values.length][2];
    for (int i = 0; i < values.length; i++) {
      for (int l = 0; l < 2; l++) {
        out[i][l] = values[i].mod(BigInteger.valueOf(p.moduli().get(l).value())).longValue();
      }
    }
    return out;
  }

  @Test
  void aShareAnswer_decryptsToTheChunksSumPlusTheMask_exactlyWhereRead() throws Exception {
    List<long[]> messages =
        List.of(randomSigned(1, 1L << 40, 4096), randomSigned(2, 1L << 40, 4096));
    List<long[]> weights = List.of(randomSigned(3, 1L << 20, 64), randomSigned(4, 1L << 20, 64));
    List<Ciphertext> inputs =
        messages.stream()
            .map(m -> Encryptor.encrypt(new Plaintext(ntt(m), 2.0), sk, random))
            .toList();
    List<ShoupPlaintext> packed =
        weights.stream()
            .map(w -> new ShoupPlaintext(new Plaintext(ntt(w), 3.0), p.moduli()))
            .toList();
    long[][] masks = new long[POSITIONS.length][];
    for (int i = 0; i < masks.length; i++) {
      masks[i] = new long[] {i + 1, i + 1}; // M = i + 1 at output i
    }
    ShareAnswer answer = share(inputs, packed, POSITIONS, masks);
    assertEquals(6.0, answer.scale());
    byte[] bytes = AnswerCodec.toBytes(answer);
    assertEquals(AnswerCodec.shareBytes(p, 3), bytes.length);
    // c1 whole, its residues at their primes' 54 bits, and c0 at three places: half a full one.
    assertTrue(bytes.length < 2 * 54 * 4096 / 8 + 100, "size " + bytes.length);
    long[][] read = AnswerDecryption.shares(AnswerCodec.shareFromBytes(bytes, p, 3), sk, POSITIONS);
    for (int i = 0; i < POSITIONS.length; i++) {
      BigInteger expected = product(messages, weights, POSITIONS[i]).add(BigInteger.valueOf(i + 1));
      BigInteger error = centred(read[i][0], read[i][1]).subtract(expected).abs();
      // Only e·P (|e| ≤ 20, ‖P‖₁ ≤ 64·2^20 per chunk) and the re-randomisation's u·e_pk + e0 +
      // e1·s: c1 is sent whole, so nothing of its rounding reaches the share (ADR 0025).
      assertTrue(error.bitLength() <= 33, "output " + i + " is off by " + error);
      assertTrue(expected.bitLength() > 55, "the test must be able to fail");
    }
  }

  @Test
  void aSwitchedAnswer_decryptsToTheProductTimes2PowBitsOverQ() throws Exception {
    long[] message = randomSigned(5, 1L << 50, 4096);
    long[] weight = randomSigned(6, 1L << 40, 8);
    Ciphertext input = Encryptor.encrypt(new Plaintext(ntt(message), 1.0), sk, random);
    BigInteger[] additions = {
      BigInteger.ZERO, BigInteger.ONE.shiftLeft(80), BigInteger.valueOf(-7)
    };
    SwitchedAnswer answer =
        switched(
            List.of(input),
            List.of(new ShoupPlaintext(new Plaintext(ntt(weight), 1.0), p.moduli())),
            POSITIONS,
            residues(additions));
    assertEquals(MaskedAnswers.switchBits(p), answer.bits());
    assertEquals(40, answer.bits());
    byte[] bytes = AnswerCodec.toBytes(answer);
    assertEquals(AnswerCodec.switchedBytes(p, 3), bytes.length);
    assertTrue(bytes.length < 40 * 4096 / 8 + 100, "size " + bytes.length);
    long[] read =
        AnswerDecryption.switched(AnswerCodec.switchedFromBytes(bytes, p, 3), sk, POSITIONS);
    double q = (double) p.moduli().get(0).value() * p.moduli().get(1).value();
    for (int i = 0; i < POSITIONS.length; i++) {
      BigInteger exact = product(List.of(message), List.of(weight), POSITIONS[i]).add(additions[i]);
      double expected = exact.doubleValue() * Math.scalb(1.0, 40) / q;
      assertTrue(Math.abs(expected) > 1 << 15, "the test must be able to fail: " + expected);
      // The switch's rounding: (1 + ‖s‖₁)/2 at most, about √N in practice.
      assertEquals(expected, read[i], 1 << 11, "output " + i);
    }
  }

  /** c1 is a fresh RLWE sample under the node's u: uniform whatever the weights. */
  @Test
  void switchedC1_isUniform_andTheSameForVeryDifferentWeights() {
    long[] message = randomSigned(7, 1L << 30, 4096);
    Ciphertext input = Encryptor.encrypt(new Plaintext(ntt(message), 1.0), sk, random);
    long[] sparse = new long[p.ringDegree()];
    sparse[0] = 1;
    long[][] buckets = new long[2][];
    int w = 0;
    for (long[] weight : List.of(sparse, randomSigned(8, 1L << 30, 4096))) {
      ShoupPlaintext packed = new ShoupPlaintext(new Plaintext(ntt(weight), 1.0), p.moduli());
      long[] values = new long[0];
      for (int round = 0; round < 4; round++) {
        SwitchedAnswer a = switched(List.of(input), List.of(packed), POSITIONS, new long[3][2]);
        long[] more = a.c1();
        values = Arrays.copyOf(values, values.length + more.length);
        System.arraycopy(more, 0, values, values.length - more.length, more.length);
      }
      buckets[w++] = ChiSquare.sixteenBuckets(values, 1L << 40);
    }
    assertTrue(
        ChiSquare.againstUniform(buckets[0]) < ChiSquare.CRITICAL_15_DOF,
        Arrays.toString(buckets[0]));
    assertTrue(
        ChiSquare.againstUniform(buckets[1]) < ChiSquare.CRITICAL_15_DOF,
        Arrays.toString(buckets[1]));
    assertTrue(ChiSquare.twoSample(buckets[0], buckets[1]) < ChiSquare.CRITICAL_15_DOF);
  }

  /**
   * ADR 0032: a packed answer's c1, after its leaves were re-randomised and switched, is uniform
   * and the same for very different weights; its c0 travels only at the outputs.
   */
  @Test
  void packedC1_isUniform_andTheSameForVeryDifferentWeights_andC0IsOnlyAtTheOutputs() {
    GaloisKeys keys = GaloisKeys.generate(sk, GaloisKeys.packingElements(p), random);
    AnswerPacking packing = new AnswerPacking(keys);
    long[] message = randomSigned(17, 1L << 30, 4096);
    Ciphertext input = Encryptor.encrypt(new Plaintext(ntt(message), 1.0), sk, random);
    int spacing = 1024;
    int[] positions = new int[16];
    for (int t = 0; t < 4; t++) {
      for (int i = 0; i < 4; i++) {
        positions[4 * t + i] = AnswerPacking.position(i, t, spacing, 4);
      }
    }
    long[] sparse = new long[p.ringDegree()];
    sparse[0] = 1;
    long[][] buckets = new long[2][];
    int w = 0;
    for (long[] weight : List.of(sparse, randomSigned(18, 1L << 30, 4096))) {
      ShoupPlaintext packed = new ShoupPlaintext(new Plaintext(ntt(weight), 1.0), p.moduli());
      long[] values = new long[0];
      for (int round = 0; round < 3; round++) {
        List<long[][][]> leaves = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
          leaves.add(
              MaskedAnswers.leaf(
                  List.of(input), List.of(packed), new int[] {0, 1024, 2048, 3072}, 0, pk, random));
        }
        ShareAnswer a =
            MaskedAnswers.sharePacked(
                p, packing.pack(leaves, spacing), positions, new long[16][2], 1.0);
        assertEquals(16, a.outputs(), "c0 travels at the outputs only");
        long[] more = a.c1Residues(0);
        values = Arrays.copyOf(values, values.length + more.length);
        System.arraycopy(more, 0, values, values.length - more.length, more.length);
      }
      buckets[w++] = ChiSquare.sixteenBuckets(values, p.moduli().get(0).value());
    }
    assertTrue(
        ChiSquare.againstUniform(buckets[0]) < ChiSquare.CRITICAL_15_DOF,
        Arrays.toString(buckets[0]));
    assertTrue(
        ChiSquare.againstUniform(buckets[1]) < ChiSquare.CRITICAL_15_DOF,
        Arrays.toString(buckets[1]));
    assertTrue(ChiSquare.twoSample(buckets[0], buckets[1]) < ChiSquare.CRITICAL_15_DOF);
  }

  @Test
  void malformedAnswers_areRefused_beforeAllocation() {
    long[] message = randomSigned(9, 1L << 30, 4096);
    Ciphertext input = Encryptor.encrypt(new Plaintext(ntt(message), 1.0), sk, random);
    ShoupPlaintext weight =
        new ShoupPlaintext(new Plaintext(ntt(randomSigned(10, 9, 3)), 1.0), p.moduli());
    byte[] share =
        AnswerCodec.toBytes(
            share(
                List.of(input), List.of(weight), POSITIONS, new long[][] {{0, 0}, {0, 0}, {0, 0}}));
    byte[] switched =
        AnswerCodec.toBytes(switched(List.of(input), List.of(weight), POSITIONS, new long[3][2]));
    assertThrows(MalformedEncodingException.class, () -> AnswerCodec.shareFromBytes(share, p, 2));
    assertThrows(
        MalformedEncodingException.class,
        () -> AnswerCodec.shareFromBytes(Arrays.copyOf(share, share.length - 1), p, 3));
    assertThrows(
        MalformedEncodingException.class, () -> AnswerCodec.switchedFromBytes(share, p, 3));
    assertThrows(
        MalformedEncodingException.class, () -> AnswerCodec.switchedFromBytes(switched, p, 4));
    byte[] residueTooLarge = share.clone();
    int c0Offset = 16 + 10 + 2 * 4096 * 54 / 8; // after c1 (two runs of 54-bit residues)
    Arrays.fill(residueTooLarge, c0Offset, c0Offset + 7, (byte) 0xFF); // c0's first: 2^54 - 1
    assertThrows(
        MalformedEncodingException.class, () -> AnswerCodec.shareFromBytes(residueTooLarge, p, 3));
    byte[] badBits = switched.clone();
    badBits[16] = 39;
    assertThrows(
        MalformedEncodingException.class, () -> AnswerCodec.switchedFromBytes(badBits, p, 3));
  }
}
