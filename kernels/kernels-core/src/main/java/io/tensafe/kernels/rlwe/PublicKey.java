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

  PublicKey(Parameters parameters, RnsPoly b, byte[] seed) {
    this.parameters = parameters;
    this.b = b;
    this.seed = seed.clone();
    this.a =
        Samplers.uniformFromSeed(seed, SEED_DOMAIN, parameters.moduli(), parameters.ringDegree());
  }

  public Parameters parameters() {
    return parameters;
  }

  RnsPoly b() {
    return b;
  }

  RnsPoly a() {
    return a;
  }

  /** A copy of the seed {@code a} is expanded from. */
  public byte[] seed() {
    return seed.clone();
  }
}
