package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;

/**
 * An RLWE public key {@code (b, a)} with {@code b = -a·s + e}, both in NTT form; {@code a} is
 * expanded from a 32-byte seed, so only {@code b} and the seed need to travel.
 */
public final class PublicKey {
  static final long SEED_DOMAIN = 0x706b5f61L; // "pk_a"

  private final Parameters parameters;
  private final RnsPoly b;
  private final byte[] seed;
  private final RnsPoly a;
  // Shoup companions of b and a, limb by limb, computed on the first public-key encryption (a
  // key that only travels or decrypts never needs them). A race computes the same words twice.
  private volatile ShoupForm shoupForm;

  private record ShoupForm(long[][] b, long[][] a) {}

  /** A key whose {@code a} has already been expanded from {@code seed}. */
  PublicKey(Parameters parameters, RnsPoly b, byte[] seed, RnsPoly a) {
    this.parameters = parameters;
    this.b = b;
    this.seed = seed.clone();
    this.a = a;
  }

  /** A key read back from {@code b} and the seed: expands {@code a}. */
  static PublicKey fromSeed(Parameters parameters, RnsPoly b, byte[] seed) {
    return new PublicKey(parameters, b, seed, expandA(parameters, seed));
  }

  static RnsPoly expandA(Parameters parameters, byte[] seed) {
    return Samplers.uniformFromSeed(
        seed, SEED_DOMAIN, parameters.moduli(), parameters.ringDegree());
  }

  public Parameters parameters() {
    return parameters;
  }

  /** b, NTT form: shared, never to be changed. */
  public RnsPoly b() {
    return b;
  }

  /** a, NTT form: shared, never to be changed. */
  public RnsPoly a() {
    return a;
  }

  /** Shoup companions of b modulo prime {@code limb}: shared, never to be changed. */
  public long[] bShoup(int limb) {
    return shoupForm().b()[limb];
  }

  /** Shoup companions of a modulo prime {@code limb}: shared, never to be changed. */
  public long[] aShoup(int limb) {
    return shoupForm().a()[limb];
  }

  private ShoupForm shoupForm() {
    ShoupForm form = shoupForm;
    if (form == null) {
      long[][] bShoup = new long[b.limbCount()][];
      long[][] aShoup = new long[a.limbCount()][];
      for (int l = 0; l < bShoup.length; l++) {
        bShoup[l] = parameters.moduli().get(l).shoupPrecomputeAll(b.limb(l));
        aShoup[l] = parameters.moduli().get(l).shoupPrecomputeAll(a.limb(l));
      }
      form = new ShoupForm(bShoup, aShoup);
      shoupForm = form;
    }
    return form;
  }

  /** A copy of the seed {@code a} is expanded from. */
  public byte[] seed() {
    return seed.clone();
  }
}
