package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A client's key-switching keys for the automorphisms {@code τ_k: X → X^k} that packing answers
 * needs ({@code protocol.AnswerPacking}): for each Galois element k and gadget digit t, {@code
 * (b_t, a_t)} with {@code b_t = −a_t·s + e_t + 2^(t·DIGIT_BITS)·τ_k(s)} over both primes, {@code
 * a_t} expanded from the key's 32-byte seed, e_t Gaussian ({@code |e| ≤ 20}). With {@code c = Σ_t
 * d_t·2^(18t)} (balanced digits, {@code |d_t| ≤ 2^17}), {@code Σ_t d_t·(b_t + a_t·s) = τ_k(s)·c +
 * Σ_t d_t·e_t}: switching adds at most {@link #noiseBound} to a coefficient (ADR 0032).
 *
 * <p>Ownership: made by the client from its secret key and sent once per session; the node keeps
 * them for the session only. Only the public parts ({@code b_t} and the seed) exist here. Holds
 * {@code 4·DIGITS·2·N} words per element in NTT form with Shoup companions: 1.5 MiB at N = 4096, 12
 * MiB for a ring's eight elements (the wire form is 4.7 times smaller). Immutable.
 */
public final class GaloisKeys {
  /** Bits per gadget digit: base 2^18. */
  public static final int DIGIT_BITS = 18;

  /** Digits per coefficient: {@code 6·18 = 108 ≥ log2 Q} for two 54-bit primes. */
  public static final int DIGITS = 6;

  static final long SEED_DOMAIN = 0x676b0000L; // "gk" and the digit

  private final Parameters parameters;
  private final Map<Integer, SwitchKey> keys;

  /**
   * One element's key, NTT form: {@code b[t][limb]}, {@code a[t][limb]} and their Shoup companions;
   * {@code seed} expands {@code a}.
   */
  record SwitchKey(
      int element, long[][][] b, long[][][] bShoup, long[][][] a, long[][][] aShoup, byte[] seed) {}

  private GaloisKeys(Parameters parameters, Map<Integer, SwitchKey> keys) {
    this.parameters = parameters;
    this.keys = keys;
  }

  /**
   * The packing levels a session's keys cover in ring {@code p}: a level joining outputs s apart
   * uses {@code N/s + 1}, and keys exist for {@code s ≥ N/2^levels}. Eight levels up to N = 2^14,
   * then fewer, so a ring's keys stay about 10.6 MB or less on the wire (2.7 MB at N = 4096): at
   * most {@code 2^17/N} levels.
   */
  public static int packingLevels(Parameters p) {
    return packingLevels(p.ringDegree());
  }

  /** {@link #packingLevels(Parameters)} for a ring of degree N. */
  public static int packingLevels(int ringDegree) {
    return Math.max(1, Math.min(8, (1 << 17) / ringDegree));
  }

  /**
   * The elements {@code 2^j + 1} for j in [1, {@link #packingLevels}], ascending: a packing level
   * at outputs {@code s = N/2^j} apart uses {@code 2^j + 1}. A session's keys are exactly these.
   */
  public static List<Integer> packingElements(Parameters p) {
    List<Integer> out = new ArrayList<>();
    for (int j = 1; j <= packingLevels(p); j++) {
      out.add((1 << j) + 1);
    }
    return List.copyOf(out);
  }

  /**
   * Keys of {@code secretKey} for {@code elements} (odd, in (1, 2N)), fresh seeds and errors from
   * {@code random}.
   */
  public static GaloisKeys generate(
      SecretKey secretKey, List<Integer> elements, SecureRandom random) {
    Parameters p = requireTwoPrimes(secretKey.parameters());
    RnsPoly s = secretKey.ntt().copy();
    s.toCoefficientsInPlace(p.ntts());
    Map<Integer, SwitchKey> keys = new TreeMap<>();
    for (int k : elements) {
      requireElement(p, k);
      byte[] seed = new byte[Samplers.SEED_BYTES];
      random.nextBytes(seed);
      long[][] rotated = new long[2][];
      for (int l = 0; l < 2; l++) {
        rotated[l] = Automorphisms.apply(s.limb(l), k, p.moduli().get(l));
        p.ntts().get(l).forwardInPlace(rotated[l]);
      }
      long[][][] b = new long[DIGITS][2][];
      for (int t = 0; t < DIGITS; t++) {
        RnsPoly a = expandA(p, seed, t);
        RnsPoly e = RnsPoly.fromSigned(Samplers.gaussian(p.ringDegree(), random), p.moduli());
        e.toNttInPlace(p.ntts());
        for (int l = 0; l < 2; l++) {
          Modulus q = p.moduli().get(l);
          long gadget = q.pow(2, (long) t * DIGIT_BITS);
          long[] sl = secretKey.ntt().limb(l);
          long[] out = new long[p.ringDegree()];
          for (int i = 0; i < out.length; i++) {
            long as = q.mul(a.limb(l)[i], sl[i]);
            long v = q.sub(e.limb(l)[i], as);
            out[i] = q.add(v, q.mul(gadget, rotated[l][i]));
          }
          b[t][l] = out;
        }
      }
      keys.put(k, withCompanions(p, k, b, seed));
    }
    return new GaloisKeys(p, keys);
  }

  /** Keys read back from their public parts (the codec's): expands each {@code a}. */
  static GaloisKeys fromPublicParts(
      Parameters p, Map<Integer, long[][][]> bs, Map<Integer, byte[]> seeds) {
    Map<Integer, SwitchKey> keys = new TreeMap<>();
    for (Map.Entry<Integer, long[][][]> entry : bs.entrySet()) {
      int k = entry.getKey();
      requireElement(p, k);
      keys.put(k, withCompanions(p, k, entry.getValue(), seeds.get(k)));
    }
    return new GaloisKeys(p, keys);
  }

  private static SwitchKey withCompanions(Parameters p, int k, long[][][] b, byte[] seed) {
    long[][][] a = new long[DIGITS][2][];
    long[][][] aShoup = new long[DIGITS][2][];
    long[][][] bShoup = new long[DIGITS][2][];
    for (int t = 0; t < DIGITS; t++) {
      RnsPoly expanded = expandA(p, seed, t);
      for (int l = 0; l < 2; l++) {
        Modulus q = p.moduli().get(l);
        a[t][l] = expanded.limb(l);
        aShoup[t][l] = q.shoupPrecomputeAll(a[t][l]);
        bShoup[t][l] = q.shoupPrecomputeAll(b[t][l]);
      }
    }
    return new SwitchKey(k, b, bShoup, a, aShoup, seed.clone());
  }

  private static RnsPoly expandA(Parameters p, byte[] seed, int digit) {
    return Samplers.uniformFromSeed(seed, SEED_DOMAIN + digit, p.moduli(), p.ringDegree());
  }

  static void requireElement(Parameters p, int k) {
    if (k <= 1 || k >= 2 * p.ringDegree() || (k & 1) == 0) {
      throw new IllegalArgumentException(
          "a Galois element is odd and in (1, " + 2 * p.ringDegree() + "), was " + k);
    }
  }

  private static Parameters requireTwoPrimes(Parameters p) {
    if (p.limbCount() != 2) {
      throw new IllegalArgumentException("Galois keys are for two-prime rings");
    }
    return p;
  }

  public Parameters parameters() {
    return parameters;
  }

  /** The elements these keys switch, ascending. */
  public List<Integer> elements() {
    return List.copyOf(keys.keySet());
  }

  SwitchKey key(int element) {
    SwitchKey key = keys.get(element);
    if (key == null) {
      throw new IllegalArgumentException("no key for the automorphism X -> X^" + element);
    }
    return key;
  }

  /**
   * Hoeffding's bound on one switch's added noise at a coefficient, for an honest key's errors
   * (independent, zero-mean, {@code |e| ≤ 20}) and digits {@code |d| ≤ 2^17}: {@code DIGITS·N}
   * terms, so {@code Pr[|Σ d·e| > 2^17·20·√(2·DIGITS·N·ln 2^65)] ≤ 2^-64}.
   */
  public static double noiseBound(Parameters p) {
    double terms = (double) DIGITS * p.ringDegree();
    return Math.scalb(1.0, DIGIT_BITS - 1)
        * Samplers.ERROR_BOUND
        * Math.sqrt(2 * terms * 65 * Math.log(2));
  }
}
