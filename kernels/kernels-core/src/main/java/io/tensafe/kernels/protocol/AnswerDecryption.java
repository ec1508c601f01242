package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.rlwe.SecretKey;

/**
 * The key owner's reading of {@link ShareAnswer}s and {@link SwitchedAnswer}s at their output
 * coefficients. The positions are the caller's (its packing layout); the answers carry only values.
 * Costs per answer: two inverse NTTs for a share answer, one forward and one inverse for a switched
 * one.
 */
public final class AnswerDecryption {
  private AnswerDecryption() {}

  /**
   * The residues {@code [outputs][2]}, each in [0, q_l), that {@code answer} decrypts to at {@code
   * positions}.
   *
   * @throws IllegalArgumentException if the answer is not under this key or the counts differ
   */
  public static long[][] shares(ShareAnswer answer, SecretKey key, int[] positions) {
    Parameters p = requireKey(answer.parameters(), key);
    requireCount(answer.outputs(), positions);
    long[][] out = new long[positions.length][2];
    for (int l = 0; l < 2; l++) {
      Modulus q = p.moduli().get(l);
      long[] product = answer.c1Residues(l);
      p.ntts().get(l).forwardInPlace(product);
      key.multiplyInPlace(product, l);
      p.ntts().get(l).inverseInPlace(product);
      for (int i = 0; i < positions.length; i++) {
        out[i][l] = q.add(answer.c0(l, i), product[positions[i]]);
      }
    }
    return out;
  }

  /**
   * The centred values, in {@code [-2^(bits-1), 2^(bits-1))}, that {@code answer} decrypts to at
   * {@code positions}: the message times {@code 2^bits/Q}, plus the switch's rounding error.
   *
   * @throws IllegalArgumentException if the answer is not under this key, the counts differ, or its
   *     bit count is more than this ring allows ({@link MaskedAnswers#switchBits})
   */
  public static long[] switched(SwitchedAnswer answer, SecretKey key, int[] positions) {
    Parameters p = requireKey(answer.parameters(), key);
    requireCount(answer.outputs(), positions);
    int bits = answer.bits();
    if (bits > MaskedAnswers.switchBits(p)) {
      throw new IllegalArgumentException(
          "an answer of " + bits + " bits is too wide for this ring");
    }
    // c1·s over the integers: |Σ| < N·2^(bits-1) < q0/2, so one prime holds it exactly.
    Modulus q = p.moduli().getFirst();
    NegacyclicNtt ntt = p.ntts().getFirst();
    long half = 1L << (bits - 1);
    long[] c1 = answer.c1();
    long[] product = new long[c1.length];
    for (int k = 0; k < product.length; k++) {
      long centred = c1[k] >= half ? c1[k] - (1L << bits) : c1[k];
      product[k] = centred < 0 ? q.value() + centred : centred;
    }
    ntt.forwardInPlace(product);
    key.multiplyInPlace(product, 0);
    ntt.inverseInPlace(product);
    long mask = (1L << bits) - 1;
    long[] out = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      long v = product[positions[i]];
      long integer = v > q.value() / 2 ? v - q.value() : v;
      long sum = (answer.c0(i) + integer) & mask;
      out[i] = sum >= half ? sum - (1L << bits) : sum;
    }
    return out;
  }

  private static Parameters requireKey(Parameters answerParameters, SecretKey key) {
    if (!answerParameters.equals(key.parameters()) || key.parameters().limbCount() != 2) {
      throw new IllegalArgumentException("the answer is not under this two-prime key");
    }
    return key.parameters();
  }

  private static void requireCount(int outputs, int[] positions) {
    if (outputs != positions.length) {
      throw new IllegalArgumentException(
          "the answer carries " + outputs + " outputs, " + positions.length + " positions given");
    }
  }
}
