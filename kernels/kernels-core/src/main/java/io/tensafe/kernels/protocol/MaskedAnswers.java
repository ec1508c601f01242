package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import io.tensafe.kernels.rlwe.Automorphisms;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.ModulusSwitch;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's answers in private mode: a sum of ct×pt products {@code Σ_j ct_j·P_j}, re-randomised
 * by a fresh public-key encryption {@code (u·b + e0, u·a + e1)} under the client's key, and sent
 * only where the client reads it ({@link ShareAnswer}, {@link SwitchedAnswer}).
 *
 * <p>Why this hides the weights from the client: {@code c1 = Σ_j c1_j·P_j + u·a + e1} is an RLWE
 * sample under the node's fresh secret u, so it is pseudorandom and the client cannot divide its
 * own {@code c1_j} out of it; {@code c0} is sent only at the outputs, where the caller's mask (a
 * uniform share in round one, flooding noise in round two) covers everything the weights add to the
 * client's error. Non-output coefficients of {@code c0} are never sent, so they need no mask.
 *
 * <p>Work per answer: the ternary u to NTT form on both limbs and the inverse NTTs of {@code c0}
 * and {@code c1} on both (a share answer sends c1's residues whole, a switched one keeps {@link
 * #switchBits} bits of it). Thread-safe (static, with the caller's CSPRNG).
 */
public final class MaskedAnswers {
  /** The most bits a switched answer keeps. */
  public static final int MAX_BITS = ModulusSwitch.MAX_BITS;

  private MaskedAnswers() {}

  /**
   * The bits a switched answer under {@code p} keeps: at most {@link #MAX_BITS}, and few enough
   * that the client's {@code c1·s} (N terms below {@code 2^(bits-1)}) stays below half the first
   * prime, so one limb decrypts it exactly.
   */
  public static int switchBits(Parameters p) {
    return Math.min(MAX_BITS, p.moduli().getFirst().bitLength() - 1 - p.logN());
  }

  /**
   * One leaf of a packed answer ({@link AnswerPacking}): {@code X^shift·(Σ_j inputs_j·weights_j +
   * (u·b + e0, u·a + e1))} in coefficient form, {@code [component][limb][N]}, with a fresh ternary
   * u, Gaussian e1 on every coefficient and Gaussian e0 at the leaf's {@code outputs} (before the
   * rotation): packing moves no other coefficient of c0 to an output, and c0 is sent only there.
   * Re-randomising each leaf before it is packed makes every c1 the packing switches an RLWE sample
   * under the node's u, so the digits that meet the client's key errors are pseudorandom to the
   * client whatever the weights (ADR 0032).
   *
   * @param shift in [0, 2N): the negacyclic rotation that moves the leaf's outputs where the
   *     packing expects them
   */
  public static long[][][] leaf(
      List<Ciphertext> inputs,
      List<ShoupPlaintext> weights,
      int[] outputs,
      int shift,
      PublicKey key,
      SecureRandom random) {
    return reRandomised(products(inputs, weights), outputs, shift, key, random);
  }

  /**
   * {@code Σ_j inputs_j·weights_j} in NTT form over both limbs, {@code [component][limb][N]}: what
   * a leaf holds before it is re-randomised. Round one's check is computed on these ({@link
   * #check}), so each answer's re-randomisation noise, and with it any error the client put in its
   * public key, enters the check's difference with its own weight h_i (ADR 0037).
   */
  public static long[][][] products(List<Ciphertext> inputs, List<ShoupPlaintext> weights) {
    if (inputs.isEmpty() || inputs.size() != weights.size()) {
      throw new IllegalArgumentException("one plaintext per input ciphertext, at least one");
    }
    Parameters p = inputs.getFirst().parameters();
    for (Ciphertext ct : inputs) {
      if (!ct.parameters().equals(p) || ct.limbCount() != 2) {
        throw new IllegalArgumentException("inputs must be two-limb ciphertexts of one ring");
      }
    }
    int n = p.ringDegree();
    long[][][] out = new long[2][2][];
    for (int l = 0; l < 2; l++) {
      Modulus q = p.moduli().get(l);
      out[0][l] = new long[n];
      out[1][l] = new long[n];
      for (int j = 0; j < inputs.size(); j++) {
        long[] w = weights.get(j).plaintext().poly().limb(l);
        long[] wShoup = weights.get(j).shoup(l);
        addProduct(q, out[0][l], inputs.get(j).c0().limb(l), w, wShoup);
        addProduct(q, out[1][l], inputs.get(j).c1().limb(l), w, wShoup);
      }
    }
    return out;
  }

  /**
   * {@code X^shift·(products + (u·b + e0, u·a + e1))} in coefficient form, {@code
   * [component][limb][N]}, with a fresh ternary u, Gaussian e1 on every coefficient and Gaussian e0
   * at {@code outputs} (before the rotation). {@code products} (NTT form, from {@link #products})
   * is not changed.
   */
  public static long[][][] reRandomised(
      long[][][] products, int[] outputs, int shift, PublicKey key, SecureRandom random) {
    Parameters p = key.parameters();
    RnsPoly u = RnsPoly.fromSigned(Samplers.ternary(p.ringDegree(), random), p.moduli());
    u.toNttInPlace(p.ntts());
    long[] e0 = Samplers.gaussian(outputs.length, random);
    long[] e1 = Samplers.gaussian(p.ringDegree(), random);
    long[][][] out = new long[2][2][];
    for (int l = 0; l < 2; l++) {
      Modulus q = p.moduli().get(l);
      long[] uLimb = u.limb(l);
      long[] c0 = encryptionOfZero(q, uLimb, key.b().limb(l), key.bShoup(l));
      long[] c1 = encryptionOfZero(q, uLimb, key.a().limb(l), key.aShoup(l));
      for (int k = 0; k < c0.length; k++) {
        c0[k] = q.add(c0[k], products[0][l][k]);
        c1[k] = q.add(c1[k], products[1][l][k]);
      }
      p.ntts().get(l).inverseInPlace(c0);
      p.ntts().get(l).inverseInPlace(c1);
      for (int i = 0; i < outputs.length; i++) {
        c0[outputs[i]] = q.add(c0[outputs[i]], signed(q, e0[i]));
      }
      for (int k = 0; k < c1.length; k++) {
        c1[k] = q.add(c1[k], signed(q, e1[k]));
      }
      out[0][l] = shift == 0 ? c0 : Automorphisms.rotate(c0, shift, q);
      out[1][l] = shift == 0 ? c1 : Automorphisms.rotate(c1, shift, q);
    }
    return out;
  }

  /**
   * Round two's packed answer: {@code packed} ({@link AnswerPacking#pack}) with {@code
   * additions[i]} (residues per limb: flooding and DP noise) added at {@code positions[i]}, c1
   * whole and c0 at the positions, switched to {@link #switchBits} bits.
   *
   * @param scale the products' scale (the shares' times B's)
   */
  public static SwitchedAnswer switchedPacked(
      Parameters p, long[][][] packed, int[] positions, long[][] additions, double scale) {
    ModulusSwitch down = new ModulusSwitch(p, switchBits(p));
    long[] switchedC1 = new long[p.ringDegree()];
    for (int k = 0; k < switchedC1.length; k++) {
      switchedC1[k] = down.apply(packed[1][0][k], packed[1][1][k]);
    }
    long[] switchedC0 = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      long r0 = p.moduli().get(0).add(packed[0][0][positions[i]], additions[i][0]);
      long r1 = p.moduli().get(1).add(packed[0][1][positions[i]], additions[i][1]);
      switchedC0[i] = down.apply(r0, r1);
    }
    return new SwitchedAnswer(p, down.bits(), switchedC1, switchedC0, scale);
  }

  /**
   * Round one's packed answer: {@code packed} with {@code masks[i]} (residues per limb, uniform)
   * added at {@code positions[i]}, c1 whole and c0 at the positions.
   */
  public static ShareAnswer sharePacked(
      Parameters p, long[][][] packed, int[] positions, long[][] masks, double scale) {
    long[][] c0 = new long[2][positions.length];
    for (int l = 0; l < 2; l++) {
      Modulus q = p.moduli().get(l);
      for (int i = 0; i < positions.length; i++) {
        c0[l][i] = q.add(packed[0][l][positions[i]], masks[i][l]);
      }
    }
    return new ShareAnswer(p, new long[][] {packed[1][0], packed[1][1]}, c0, scale);
  }

  /**
   * Round one's check answer: {@code Σ_a products_a·H_a} re-randomised ({@link #reRandomised}),
   * read at coefficient {@code position} with {@code mask} added. With {@code H_a}'s coefficient
   * {@code N − 1 − k} holding {@code h_i} for each output i of answer a at coefficient k (and zero
   * elsewhere), coefficient N − 1 of the sum is exactly {@code Σ_i h_i·y_i}, y_i answer a's
   * products at output i before its re-randomisation (ADR 0037: each answer's re-randomisation
   * noise then enters the check's difference, weighted by its h_i).
   *
   * @param products per answer, its products in NTT form ({@link #products}), not re-randomised
   * @param checks per answer, {@code H_a}'s signed coefficients
   */
  public static ShareAnswer check(
      List<long[][][]> products,
      List<long[]> checks,
      int position,
      long[] mask,
      double scale,
      PublicKey key,
      SecureRandom random) {
    Parameters p = key.parameters();
    List<Ciphertext> inputs = new ArrayList<>(products.size());
    List<ShoupPlaintext> weights = new ArrayList<>(products.size());
    for (int a = 0; a < products.size(); a++) {
      RnsPoly c0 = RnsPoly.wrap(new long[][] {products.get(a)[0][0], products.get(a)[0][1]}, true);
      RnsPoly c1 = RnsPoly.wrap(new long[][] {products.get(a)[1][0], products.get(a)[1][1]}, true);
      inputs.add(Ciphertext.ofNtt(p, c0, c1, scale));
      RnsPoly h = RnsPoly.fromSigned(checks.get(a), p.moduli());
      h.toNttInPlace(p.ntts());
      weights.add(new ShoupPlaintext(new Plaintext(h, 1.0), p.moduli()));
    }
    long[][][] sum = reRandomised(products(inputs, weights), new int[] {position}, 0, key, random);
    return sharePacked(p, sum, new int[] {position}, new long[][] {mask}, scale);
  }

  private static long[] encryptionOfZero(Modulus q, long[] u, long[] k, long[] kShoup) {
    long[] out = new long[u.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = q.mulShoup(u[i], k[i], kShoup[i]);
    }
    return out;
  }

  private static void addProduct(Modulus q, long[] acc, long[] x, long[] w, long[] wShoup) {
    for (int i = 0; i < acc.length; i++) {
      acc[i] = q.add(acc[i], q.mulShoup(x[i], w[i], wShoup[i]));
    }
  }

  private static long signed(Modulus q, long v) {
    return v < 0 ? q.value() + v : v;
  }
}
