package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.security.SecureRandom;

/** Generates secret and public keys. The caller supplies the CSPRNG. */
public final class KeyGenerator {
  private KeyGenerator() {}

  /** A fresh ternary secret key. */
  public static SecretKey secretKey(Parameters parameters, SecureRandom random) {
    RnsPoly s =
        RnsPoly.fromSigned(Samplers.ternary(parameters.ringDegree(), random), parameters.moduli());
    s.toNttInPlace(parameters.ntts());
    return new SecretKey(parameters, s);
  }

  /** The public key {@code (-a·s + e, a)} of {@code secretKey}, with a fresh seed for {@code a}. */
  public static PublicKey publicKey(SecretKey secretKey, SecureRandom random) {
    Parameters p = secretKey.parameters();
    byte[] seed = new byte[Samplers.SEED_BYTES];
    random.nextBytes(seed);
    RnsPoly a = PublicKey.expandA(p, seed);
    RnsPoly b = a.copy();
    b.multiplyInPlace(secretKey.ntt(), p.moduli());
    b.negateInPlace(p.moduli());
    RnsPoly e = RnsPoly.fromSigned(Samplers.gaussian(p.ringDegree(), random), p.moduli());
    e.toNttInPlace(p.ntts());
    b.addInPlace(e, p.moduli());
    return new PublicKey(p, b, seed, a);
  }
}
