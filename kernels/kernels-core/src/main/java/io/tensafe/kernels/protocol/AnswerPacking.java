package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.rlwe.Automorphisms;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.KeySwitching;
import java.util.ArrayList;
import java.util.List;

/**
 * Packs many answers into one ciphertext with automorphisms and key switching: the tree of PackLWEs
 * (Chen, Dai, Kim and Song, "Efficient Homomorphic Conversion Between (Ring) LWE Ciphertexts", ACNS
 * 2021) on leaves that each carry several outputs, without its final trace, because the answer's c0
 * is sent only at the outputs (ADR 0032).
 *
 * <p>Leaf t of n carries its outputs at coefficients {@code i·S} (S = {@code spacing}, a power of
 * two); with {@code n'} the power of two at or above n, the packed ciphertext holds leaf t's output
 * i at {@link #position}{@code = i·S + t·S/n'}, exactly (the leaves are multiplied by {@code n'^-1}
 * modulo Q first, and each of the tree's {@code log2 n'} levels doubles the outputs). A level joins
 * e and o, whose outputs sit at multiples of 2s ({@code s = S/m} for m items at that level), as
 * {@code (e + X^s·o) + τ_(N/s+1)(e − X^s·o)}: τ fixes the multiples of 2s and negates the odd
 * multiples of s, so at every output the other half's values cancel. Non-output coefficients hold
 * what the automorphisms moved there and are never sent. A missing item costs no switch ({@code 2e}
 * or {@code 2·X^s·o}).
 *
 * <p>Noise: each switch adds at most {@link GaloisKeys#noiseBound}. At an output of a level the
 * other half's coefficient appears twice with opposite signs, so it cancels with its noise: the
 * output is twice its own half's value (noise included) plus one switch's noise, and after L levels
 * it carries at most {@code 2^L − 1} switches' bounds ({@link #noiseBound}). Key switches: one per
 * joined pair, at most n − 1.
 */
public final class AnswerPacking {
  private final Parameters parameters;
  private final GaloisKeys keys;
  private final KeySwitching switching;

  public AnswerPacking(GaloisKeys keys) {
    this.parameters = keys.parameters();
    this.keys = keys;
    this.switching = new KeySwitching(parameters);
  }

  /** n': the power of two at or above {@code leaves}. */
  public static int slots(int leaves) {
    if (leaves < 1) {
      throw new IllegalArgumentException("at least one leaf");
    }
    return leaves == 1 ? 1 : Integer.highestOneBit(leaves - 1) << 1;
  }

  /** Where leaf {@code leaf}'s output at {@code i·spacing} lands in a packing of {@code leaves}. */
  public static int position(int i, int leaf, int spacing, int leaves) {
    return i * spacing + leaf * (spacing / slots(leaves));
  }

  /**
   * The bound on the switching noise at an output of a packing of {@code leaves} ({@link
   * GaloisKeys#noiseBound} times {@code 2^L − 1}, L = log2 n').
   */
  public static double noiseBound(Parameters p, int leaves) {
    int levels = Integer.numberOfTrailingZeros(slots(leaves));
    return GaloisKeys.noiseBound(p) * ((1 << levels) - 1);
  }

  /**
   * One ciphertext holding every leaf's outputs at {@link #position}. Leaves are {@code
   * [component][limb][N]} in coefficient form, their outputs at multiples of {@code spacing}; they
   * are not modified. One leaf is its own answer, at any spacing.
   *
   * @throws IllegalArgumentException if spacing is not a power of two, or the slots do not fit in
   *     it
   */
  public long[][][] pack(List<long[][][]> leaves, int spacing) {
    if (leaves.size() == 1) {
      return leaves.getFirst();
    }
    int slots = slots(leaves.size());
    if (Integer.bitCount(spacing) != 1 || spacing > parameters.ringDegree() || slots > spacing) {
      throw new IllegalArgumentException(
          leaves.size() + " leaves do not fit between outputs " + spacing + " apart");
    }
    List<long[][][]> items = new ArrayList<>(slots);
    for (int t = 0; t < slots; t++) {
      items.add(t < leaves.size() ? scaled(leaves.get(t), slots) : null);
    }
    return tree(items, spacing);
  }

  private long[][][] tree(List<long[][][]> items, int spacing) {
    if (items.size() == 1) {
      return items.getFirst();
    }
    List<long[][][]> evens = new ArrayList<>();
    List<long[][][]> odds = new ArrayList<>();
    for (int t = 0; t < items.size(); t++) {
      (t % 2 == 0 ? evens : odds).add(items.get(t));
    }
    long[][][] even = tree(evens, spacing);
    long[][][] odd = tree(odds, spacing);
    int s = spacing / items.size();
    if (odd == null) {
      return even == null ? null : doubledInPlace(even);
    }
    long[][][] shifted = rotated(odd, s);
    if (even == null) {
      return doubledInPlace(shifted);
    }
    // In place (the tree owns every item: scaled copies of the leaves, or its own results):
    // even becomes e + X^s·o and shifted e − X^s·o, which is switched and added to even.
    int n = parameters.ringDegree();
    for (int c = 0; c < 2; c++) {
      for (int l = 0; l < 2; l++) {
        Modulus q = parameters.moduli().get(l);
        long[] e = even[c][l];
        long[] o = shifted[c][l];
        for (int i = 0; i < n; i++) {
          long ei = e[i];
          e[i] = q.add(ei, o[i]);
          o[i] = q.sub(ei, o[i]);
        }
      }
    }
    long[][][] switched = switching.apply(shifted, parameters.ringDegree() / s + 1, keys);
    for (int c = 0; c < 2; c++) {
      for (int l = 0; l < 2; l++) {
        Modulus q = parameters.moduli().get(l);
        long[] e = even[c][l];
        long[] w = switched[c][l];
        for (int i = 0; i < n; i++) {
          e[i] = q.add(e[i], w[i]);
        }
      }
    }
    return even;
  }

  /** {@code 2·ct}, in place. */
  private long[][][] doubledInPlace(long[][][] ct) {
    for (int c = 0; c < 2; c++) {
      for (int l = 0; l < 2; l++) {
        Modulus q = parameters.moduli().get(l);
        long[] v = ct[c][l];
        for (int i = 0; i < v.length; i++) {
          v[i] = q.add(v[i], v[i]);
        }
      }
    }
    return ct;
  }

  private long[][][] rotated(long[][][] ct, int shift) {
    long[][][] out = new long[2][2][];
    for (int c = 0; c < 2; c++) {
      for (int l = 0; l < 2; l++) {
        out[c][l] = Automorphisms.rotate(ct[c][l], shift, parameters.moduli().get(l));
      }
    }
    return out;
  }

  /** {@code ct·n'^-1} modulo each prime. */
  private long[][][] scaled(long[][][] ct, int slots) {
    long[][][] out = new long[2][2][];
    for (int l = 0; l < 2; l++) {
      Modulus q = parameters.moduli().get(l);
      long inverse = q.pow(slots, q.value() - 2);
      long inverseShoup = q.shoupPrecompute(inverse);
      for (int c = 0; c < 2; c++) {
        long[] in = ct[c][l];
        long[] o = new long[in.length];
        for (int i = 0; i < in.length; i++) {
          o[i] = q.mulShoup(in[i], inverse, inverseShoup);
        }
        out[c][l] = o;
      }
    }
    return out;
  }
}
