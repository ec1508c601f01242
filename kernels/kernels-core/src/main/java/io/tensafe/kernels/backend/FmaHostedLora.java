package io.tensafe.kernels.backend;

import io.tensafe.kernels.ring.FmaLanes;
import io.tensafe.kernels.ring.InliningBarriers;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link CpuBackend#hostedLora}'s element-wise work on SIMD lanes of doubles ({@link FmaLanes}),
 * for primes below 2^50: the same operations in the same order (encrypt {@code c0 = NTT(m + e) −
 * c1·s}; per plaintext {@code c0·p + (c1·p)·s}, the plaintext before the key; then the outputs'
 * inner products or an inverse NTT), with the same results as the 64-bit loops after reduction.
 *
 * <p>Bounds, in units of q: {@code c0} after encryption within (-3/4, 7/4); each product within
 * 3/4, so a decrypted value within 3/2; an inner product's running sum is reduced to 1/2 + 1/q at
 * every step. All stay below the 4q that {@link FmaLanes} takes. Only loaded when the vector module
 * is. Stateless: each call owns its scratch arrays.
 */
final class FmaHostedLora {
  private static final VectorSpecies<Double> DOUBLES = FmaLanes.SPECIES;
  private static final VectorSpecies<Long> WORDS = LongVector.SPECIES_PREFERRED;

  // Inlining barriers, as the NTT's passes have (InliningBarriers): inlined into the token loop,
  // the
  // two loops below passed C2's node budget on four lanes and their vectors were boxed (505 µs a
  // token's products instead of about 130, -XX:UseAVX=2).
  private static final MethodHandle MULTIPLY_DECRYPT =
      InliningBarriers.find(
          MethodHandles.lookup(),
          FmaHostedLora.class,
          "multiplyDecryptLoop",
          MethodType.methodType(void.class, int.class));
  private static final MethodHandle EXTRACT =
      InliningBarriers.find(
          MethodHandles.lookup(),
          FmaHostedLora.class,
          "extractLoop",
          MethodType.methodType(long.class, int.class));
  private final MethodHandle multiplyDecryptPass = MULTIPLY_DECRYPT;
  private final MethodHandle extractPass = EXTRACT;

  private final NegacyclicNtt ntt;
  private final FmaWeights forms;
  private final double q;
  private final double qInverse;
  private final double[] c0;
  private final double[] c1;
  private final double[] decrypted;
  private final long[] decryptedWords;

  FmaHostedLora(HostedLoraWeights weights) {
    this.ntt = weights.ntt();
    this.forms = weights.fmaWeights();
    long modulus = ntt.modulus().value();
    this.q = modulus;
    this.qInverse = 1.0 / modulus;
    int n = ntt.degree();
    this.c0 = new double[n];
    this.c1 = new double[n];
    this.decrypted = new double[n];
    this.decryptedWords = new long[n];
  }

  /** Encrypts: {@code c0 = NTT(message) − c1·s} into this call's double arrays. */
  void encrypt(long[] message, long[] c1Words) {
    ntt.forwardInPlace(message);
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    double[] s = forms.key();
    double[] sQuotients = forms.keyQuotients();
    for (int i = 0; i < c0.length; i += DOUBLES.length()) {
      DoubleVector c1i = FmaLanes.fromWords(LongVector.fromArray(WORDS, c1Words, i));
      DoubleVector key = DoubleVector.fromArray(DOUBLES, s, i);
      DoubleVector keyQuotient = DoubleVector.fromArray(DOUBLES, sQuotients, i);
      DoubleVector m = FmaLanes.fromWords(LongVector.fromArray(WORDS, message, i));
      c1i.intoArray(c1, i);
      m.sub(FmaLanes.mulMod(c1i, key, keyQuotient, vq, rounding)).intoArray(c0, i);
    }
  }

  /** Decrypts the product with plaintext {@code p}: {@code c0·p + (c1·p)·s}, each within 3q/2. */
  void multiplyDecrypt(int p) {
    try {
      multiplyDecryptPass.invokeExact(this, p);
    } catch (Throwable e) {
      throw InliningBarriers.failed(e);
    }
  }

  /** Output {@code b} of the last decrypted product, by its inner product: a word in [0, q). */
  long extract(int b) {
    try {
      return (long) extractPass.invokeExact(this, b);
    } catch (Throwable e) {
      throw InliningBarriers.failed(e);
    }
  }

  private void multiplyDecryptLoop(int p) {
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    double[] pt = forms.plaintexts()[p];
    double[] ptQuotients = forms.plaintextQuotients()[p];
    double[] s = forms.key();
    double[] sQuotients = forms.keyQuotients();
    for (int i = 0; i < c0.length; i += DOUBLES.length()) {
      DoubleVector w = DoubleVector.fromArray(DOUBLES, pt, i);
      DoubleVector wQuotient = DoubleVector.fromArray(DOUBLES, ptQuotients, i);
      DoubleVector product0 =
          FmaLanes.mulMod(DoubleVector.fromArray(DOUBLES, c0, i), w, wQuotient, vq, rounding);
      DoubleVector product1 =
          FmaLanes.mulMod(DoubleVector.fromArray(DOUBLES, c1, i), w, wQuotient, vq, rounding);
      DoubleVector keyed =
          FmaLanes.mulMod(
              product1,
              DoubleVector.fromArray(DOUBLES, s, i),
              DoubleVector.fromArray(DOUBLES, sQuotients, i),
              vq,
              rounding);
      product0.add(keyed).intoArray(decrypted, i);
    }
  }

  private long extractLoop(int b) {
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    double[] w = forms.extraction()[b];
    double[] wQuotients = forms.extractionQuotients()[b];
    DoubleVector sum = DoubleVector.zero(DOUBLES);
    for (int i = 0; i < decrypted.length; i += DOUBLES.length()) {
      DoubleVector term =
          FmaLanes.mulMod(
              DoubleVector.fromArray(DOUBLES, decrypted, i),
              DoubleVector.fromArray(DOUBLES, w, i),
              DoubleVector.fromArray(DOUBLES, wQuotients, i),
              vq,
              rounding);
      sum = FmaLanes.reduce(sum.add(term), vq, vInverse, rounding);
    }
    // L ≤ 8 lanes, each within q/2 + 1: the sum is exact.
    return FmaLanes.toWord(sum.reduceLanes(VectorOperators.ADD), (long) q);
  }

  /** The last decrypted product's coefficients, by an inverse NTT: words in [0, q). */
  long[] coefficients() {
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    for (int i = 0; i < decrypted.length; i += DOUBLES.length()) {
      DoubleVector x =
          FmaLanes.reduce(DoubleVector.fromArray(DOUBLES, decrypted, i), vq, vInverse, rounding);
      FmaLanes.toWords(FmaLanes.nonNegative(x, vq)).intoArray(decryptedWords, i);
    }
    ntt.inverseInPlace(decryptedWords);
    return decryptedWords;
  }
}
