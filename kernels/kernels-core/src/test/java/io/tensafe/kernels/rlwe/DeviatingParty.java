package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node or relay that deviates from the private protocol can compute from public material,
 * for tests that attack the protocol (ADR 0037): answers with a c1 of its choosing, the c1 an
 * upload seed expands to, and an upload's c0. Nothing here needs a secret.
 */
public final class DeviatingParty {
  private DeviatingParty() {}

  /** The c1 that {@code seed} expands to, in coefficient form, {@code [limb][N]}. */
  public static long[][] c1Coefficients(byte[] seed, Parameters p) {
    RnsPoly c1 = Encryptor.c1FromSeed(seed, p, 2).copy();
    c1.toCoefficientsInPlace(p.ntts());
    return new long[][] {c1.limb(0).clone(), c1.limb(1).clone()};
  }

  /** An upload's c0 in coefficient form, {@code [limb][N]}, read with its true seed. */
  public static long[][] uploadC0(byte[] upload, Parameters p, byte[] seed, double scale)
      throws MalformedEncodingException {
    RnsPoly c0 = RlweCodec.uploadFromBytes(upload, p, seed, scale).c0().copy();
    c0.toCoefficientsInPlace(p.ntts());
    return new long[][] {c0.limb(0).clone(), c0.limb(1).clone()};
  }

  /** {@code key} with {@code k·X^m} added to its b: a public key whose error the client chose. */
  public static PublicKey withError(PublicKey key, long k, int m) {
    Parameters p = key.parameters();
    long[] e = new long[p.ringDegree()];
    e[m] = k;
    RnsPoly shift = RnsPoly.fromSigned(e, p.moduli());
    shift.toNttInPlace(p.ntts());
    RnsPoly b = key.b().copy();
    b.addInPlace(shift, p.moduli());
    return new PublicKey(p, b, key.seed(), key.a());
  }

  /**
   * {@code keys} with {@code k} added to every coefficient of every digit's b: switching then adds
   * {@code k·Σ_t d_t} to what it switches (issue 50's K-shifted key).
   */
  public static GaloisKeys shifted(GaloisKeys keys, long k) {
    Parameters p = keys.parameters();
    Map<Integer, long[][][]> bs = new TreeMap<>();
    Map<Integer, byte[]> seeds = new TreeMap<>();
    for (int element : keys.elements()) {
      GaloisKeys.SwitchKey key = keys.key(element);
      long[][][] b = new long[key.b().length][][];
      for (int t = 0; t < b.length; t++) {
        long[] constant = new long[p.ringDegree()];
        java.util.Arrays.fill(constant, k);
        RnsPoly add = RnsPoly.fromSigned(constant, p.moduli());
        add.toNttInPlace(p.ntts());
        RnsPoly digit =
            RnsPoly.wrap(new long[][] {key.b()[t][0].clone(), key.b()[t][1].clone()}, true);
        digit.addInPlace(add, p.moduli());
        b[t] = new long[][] {digit.limb(0), digit.limb(1)};
      }
      bs.put(element, b);
      seeds.put(element, key.seed());
    }
    return GaloisKeys.fromPublicParts(p, bs, seeds);
  }

  /** The secret key's coefficients, centred (ternary for this project's keys). */
  public static long[] coefficients(SecretKey key) {
    Parameters p = key.parameters();
    long q = p.moduli().getFirst().value();
    long[] s = key.ntt().limb(0).clone();
    p.ntts().getFirst().inverseInPlace(s);
    for (int i = 0; i < s.length; i++) {
      s[i] = s[i] > q / 2 ? s[i] - q : s[i];
    }
    return s;
  }
}
