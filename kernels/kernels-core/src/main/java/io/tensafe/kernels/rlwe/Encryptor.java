package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.security.SecureRandom;
import java.util.List;

/** Encrypts NTT-form plaintexts with a secret key (c1 from a seed) or a public key. */
public final class Encryptor {
  private Encryptor() {}

  /**
   * {@code (c0, c1) = (-c1·s + m + e, c1)} with {@code c1} expanded from a fresh 32-byte seed, over
   * the plaintext's limbs. The ciphertext keeps the seed, halving its wire size.
   */
  public static Ciphertext encrypt(Plaintext plaintext, SecretKey key, SecureRandom random) {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    random.nextBytes(seed);
    return encrypt(plaintext, key, seed, random);
  }

  /**
   * {@link #encrypt(Plaintext, SecretKey, SecureRandom)} with c1 expanded from {@code seed}, a seed
   * the caller is bound to (private mode's {@code protocol.UploadSeeds}); the error still comes
   * from {@code random}. Never reuse a seed: two ciphertexts with one c1 give away the difference
   * of their messages up to the errors.
   */
  public static Ciphertext encrypt(
      Plaintext plaintext, SecretKey key, byte[] seed, SecureRandom random) {
    if (seed.length != Samplers.SEED_BYTES) {
      throw new IllegalArgumentException("a c1 seed has " + Samplers.SEED_BYTES + " bytes");
    }
    Parameters p = key.parameters();
    int limbs = requireNtt(plaintext, p);
    List<Modulus> moduli = p.moduli().subList(0, limbs);
    RnsPoly c1 = Samplers.uniformFromSeed(seed, Ciphertext.C1_SEED_DOMAIN, moduli, p.ringDegree());
    RnsPoly c0 = c1.copy();
    c0.multiplyInPlace(key.ntt(), moduli);
    c0.negateInPlace(moduli);
    c0.addInPlace(error(p, limbs, random), moduli);
    c0.addInPlace(plaintext.poly(), moduli);
    return new Ciphertext(p, c0, c1, plaintext.scale(), seed.clone());
  }

  /**
   * The NTT-form c1 that {@link #encrypt(Plaintext, SecretKey, SecureRandom)} expands from a seed,
   * over the first {@code limbs} primes; for callers that form {@code c0 = -c1·s + e + m}
   * themselves (an accelerator backend).
   */
  public static RnsPoly c1FromSeed(byte[] seed, Parameters p, int limbs) {
    return Samplers.uniformFromSeed(
        seed, Ciphertext.C1_SEED_DOMAIN, p.moduli().subList(0, limbs), p.ringDegree());
  }

  /** {@code (b·u + e0 + m, a·u + e1)} with ternary {@code u}, over the plaintext's limbs. */
  public static Ciphertext encrypt(Plaintext plaintext, PublicKey key, SecureRandom random) {
    Parameters p = key.parameters();
    int limbs = requireNtt(plaintext, p);
    RnsPoly e0 = error(p, limbs, random);
    e0.addInPlace(plaintext.poly(), p.moduli().subList(0, limbs));
    PublicKeyDraws draws =
        new PublicKeyDraws(e0, ternary(p, limbs, random), error(p, limbs, random));
    return encryptWithPublicKey(draws, plaintext.scale(), key);
  }

  /**
   * Public-key encryption of a message given in coefficient form: {@code e0 + m} is formed before
   * the transform, so the message costs no NTT of its own. The polynomial is consumed (it becomes
   * part of c0).
   */
  public static Ciphertext encryptCoefficients(
      RnsPoly message, double scale, PublicKey key, SecureRandom random) {
    Parameters p = key.parameters();
    if (message.isNtt()
        || message.degree() != p.ringDegree()
        || message.limbCount() > p.limbCount()) {
      throw new IllegalArgumentException(
          "message must be a coefficient-form polynomial of the key's ring");
    }
    return encryptWithPublicKey(drawsForCoefficients(message, p, random), scale, key);
  }

  /** The fresh randomness of one public-key encryption, all in NTT form: e0 + m, u and e1. */
  private record PublicKeyDraws(RnsPoly errorPlusMessage, RnsPoly u, RnsPoly e1) {}

  /**
   * Draws e0, u and e1, in that order, for a coefficient-form {@code message} (consumed: it is
   * added to e0 before the transform).
   */
  private static PublicKeyDraws drawsForCoefficients(
      RnsPoly message, Parameters p, SecureRandom random) {
    int limbs = message.limbCount();
    RnsPoly e0 =
        RnsPoly.fromSigned(Samplers.gaussian(p.ringDegree(), random), p.moduli().subList(0, limbs));
    e0.addInPlace(message, p.moduli().subList(0, limbs));
    e0.toNttInPlace(p.ntts().subList(0, limbs));
    return new PublicKeyDraws(e0, ternary(p, limbs, random), error(p, limbs, random));
  }

  /** {@code (b·u + e0 + m, a·u + e1)}; the draws are consumed. */
  private static Ciphertext encryptWithPublicKey(
      PublicKeyDraws draws, double scale, PublicKey key) {
    Parameters p = key.parameters();
    int limbs = draws.u().limbCount();
    List<Modulus> moduli = p.moduli().subList(0, limbs);
    RnsPoly c0 = key.b().firstLimbs(limbs);
    c0.multiplyInPlace(draws.u(), moduli);
    c0.addInPlace(draws.errorPlusMessage(), moduli);
    RnsPoly c1 = key.a().firstLimbs(limbs);
    c1.multiplyInPlace(draws.u(), moduli);
    c1.addInPlace(draws.e1(), moduli);
    return new Ciphertext(p, c0, c1, scale, null);
  }

  /** A ternary u in NTT form over the first {@code limbs} primes. */
  private static RnsPoly ternary(Parameters p, int limbs, SecureRandom random) {
    RnsPoly u =
        RnsPoly.fromSigned(Samplers.ternary(p.ringDegree(), random), p.moduli().subList(0, limbs));
    u.toNttInPlace(p.ntts().subList(0, limbs));
    return u;
  }

  private static RnsPoly error(Parameters p, int limbs, SecureRandom random) {
    RnsPoly e =
        RnsPoly.fromSigned(Samplers.gaussian(p.ringDegree(), random), p.moduli().subList(0, limbs));
    e.toNttInPlace(p.ntts().subList(0, limbs));
    return e;
  }

  private static int requireNtt(Plaintext plaintext, Parameters p) {
    if (!plaintext.poly().isNtt()) {
      throw new IllegalArgumentException("plaintext must be in NTT form to be encrypted");
    }
    if (plaintext.poly().degree() != p.ringDegree() || plaintext.limbCount() > p.limbCount()) {
      throw new IllegalArgumentException("plaintext does not fit the key's parameters");
    }
    return plaintext.limbCount();
  }
}
