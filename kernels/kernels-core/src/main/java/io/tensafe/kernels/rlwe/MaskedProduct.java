package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import java.security.SecureRandom;

/**
 * A ct×pt product re-randomised by a fresh public-key encryption of a mask: {@code ct·P +
 * Enc_pk(M)}, in one pass per limb.
 *
 * <p>Word for word {@code Evaluator.add(Evaluator.multiplyPlain(ct, P),
 * Encryptor.encryptCoefficients(M, scale, pk, random))}: it draws through the same {@code
 * Encryptor.drawsForCoefficients}, every word is a fully reduced residue, and only the way it is
 * computed differs (Shoup multiplies by the fixed P and key, no intermediate ciphertexts).
 */
public final class MaskedProduct {
  private MaskedProduct() {}

  /**
   * {@code ct·P + Enc_pk(M)} over the ciphertext's limbs (which must all be the key's).
   *
   * @param mask the coefficient-form mask {@code M} over the same limbs; consumed (it becomes part
   *     of c0)
   */
  public static Ciphertext compute(
      Ciphertext ct, ShoupPlaintext weights, RnsPoly mask, PublicKey key, SecureRandom random) {
    Parameters p = key.parameters();
    int limbs = ct.limbCount();
    if (!ct.parameters().equals(p)
        || weights.plaintext().limbCount() < limbs
        || mask.isNtt()
        || mask.limbCount() != limbs
        || mask.degree() != p.ringDegree()) {
      throw new IllegalArgumentException(
          "ciphertext, plaintext, mask and key must share parameters and limbs");
    }
    var moduli = p.moduli().subList(0, limbs);
    Encryptor.PublicKeyDraws draws = Encryptor.drawsForCoefficients(mask, p, random);
    long[][] c0 = new long[limbs][];
    long[][] c1 = new long[limbs][];
    for (int l = 0; l < limbs; l++) {
      Modulus q = moduli.get(l);
      long[] w = weights.plaintext().poly().limb(l);
      long[] wShoup = weights.shoup(l);
      c0[l] =
          productPlusEncryption(
              q,
              ct.c0().limb(l),
              w,
              wShoup,
              draws.u().limb(l),
              key.b().limb(l),
              key.bShoup(l),
              draws.errorPlusMessage().limb(l));
      c1[l] =
          productPlusEncryption(
              q,
              ct.c1().limb(l),
              w,
              wShoup,
              draws.u().limb(l),
              key.a().limb(l),
              key.aShoup(l),
              draws.e1().limb(l));
    }
    return new Ciphertext(
        p,
        RnsPoly.wrap(c0, true),
        RnsPoly.wrap(c1, true),
        ct.scale() * weights.plaintext().scale(),
        null);
  }

  /** {@code x·w + u·k + e mod q}, element-wise; every input reduced. */
  private static long[] productPlusEncryption(
      Modulus q, long[] x, long[] w, long[] wShoup, long[] u, long[] k, long[] kShoup, long[] e) {
    long[] out = new long[x.length];
    for (int i = 0; i < out.length; i++) {
      long product = q.mulShoup(x[i], w[i], wShoup[i]);
      long encryption = q.add(q.mulShoup(u[i], k[i], kShoup[i]), e[i]);
      out[i] = q.add(product, encryption);
    }
    return out;
  }
}
