package io.tensafe.kernels;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/** Deterministic CSPRNG instances for tests. */
public final class TestRandoms {
  private TestRandoms() {}

  /** A SHA1PRNG seeded before first use, which makes it deterministic: for tests only. */
  public static SecureRandom seeded(long seed) {
    try {
      SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
      random.setSeed(seed);
      return random;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA1PRNG is part of every JDK", e);
    }
  }
}
