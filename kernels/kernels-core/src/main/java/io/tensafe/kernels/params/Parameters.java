package io.tensafe.kernels.params;

import io.tensafe.kernels.params.InvalidParametersException.Reason;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.Primes;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A validated, immutable RLWE/CKKS parameter set: ring degree, RNS modulus chain, default scale.
 *
 * <p>Invariants: {@code N = 2^logN} with logN in [11, 16]; 1 to {@link #MAX_PRIMES} distinct
 * primes, each of {@link #MIN_PRIME_BITS} to 60 bits with {@code q ≡ 1 (mod 2N)}, generated
 * deterministically (the largest such primes of each requested size, in order); {@code Δ < q_0};
 * and, unless built by {@link #ofInsecureForTesting}, log2 Q at most the HE Standard's 128-bit
 * bound ({@link SecurityTable}). Two sets with equal specs are equal and have equal {@link
 * #fingerprint()}s.
 */
public final class Parameters {
  public static final int MIN_LOG_N = 11;
  public static final int MAX_LOG_N = 16;
  public static final int MIN_PRIME_BITS = 20;
  public static final int MAX_PRIMES = 32;

  private final ParameterSpec spec;
  private final List<Modulus> moduli;
  private final List<NegacyclicNtt> ntts;
  private final double logQ;
  private final boolean secure;
  private final String fingerprint;

  private Parameters(ParameterSpec spec, List<Modulus> moduli, double logQ, boolean secure) {
    this.spec = spec;
    this.moduli = List.copyOf(moduli);
    this.ntts = moduli.stream().map(q -> NegacyclicNtt.of(q, 1 << spec.logN())).toList();
    this.logQ = logQ;
    this.secure = secure;
    this.fingerprint = fingerprintOf(spec, moduli);
  }

  /**
   * Validates {@code spec} and builds the parameter set.
   *
   * @throws InvalidParametersException naming the first rule broken, {@link Reason#INSECURE} if log
   *     Q exceeds the 128-bit bound
   */
  public static Parameters of(ParameterSpec spec) throws InvalidParametersException {
    return build(spec, true);
  }

  /**
   * Like {@link #of} but skips the security check, for tests that need small or over-wide moduli.
   * Every other rule still applies. Never use it for data that matters.
   */
  public static Parameters ofInsecureForTesting(ParameterSpec spec)
      throws InvalidParametersException {
    return build(spec, false);
  }

  private static Parameters build(ParameterSpec spec, boolean enforceSecurity)
      throws InvalidParametersException {
    if (spec.logN() < MIN_LOG_N || spec.logN() > MAX_LOG_N) {
      throw new InvalidParametersException(
          Reason.RING_DEGREE_OUT_OF_RANGE,
          "logN is " + spec.logN() + ", must be in [" + MIN_LOG_N + ", " + MAX_LOG_N + "]");
    }
    int count = spec.primeBits().size();
    if (count < 1 || count > MAX_PRIMES) {
      throw new InvalidParametersException(
          Reason.PRIME_COUNT_OUT_OF_RANGE,
          "primeBits has " + count + " entries, must be 1 to " + MAX_PRIMES);
    }
    for (int bits : spec.primeBits()) {
      if (bits < MIN_PRIME_BITS || bits > Modulus.MAX_BITS) {
        throw new InvalidParametersException(
            Reason.PRIME_BITS_OUT_OF_RANGE,
            "a prime of "
                + bits
                + " bits was asked for, must be "
                + MIN_PRIME_BITS
                + " to "
                + Modulus.MAX_BITS);
      }
    }
    List<Modulus> moduli = generatePrimes(spec);
    double logQ = 0;
    for (Modulus q : moduli) {
      logQ += q.log2();
    }
    int maxLogQ = SecurityTable.maxLogQ128(spec.logN());
    if (enforceSecurity && logQ > maxLogQ) {
      throw new InvalidParametersException(
          Reason.INSECURE,
          String.format(
              java.util.Locale.ROOT,
              "log2 Q is %.2f, over the 128-bit bound of %d for N = 2^%d",
              logQ,
              maxLogQ,
              spec.logN()));
    }
    if (spec.logScale() < 1 || spec.logScale() >= moduli.getFirst().bitLength()) {
      throw new InvalidParametersException(
          Reason.SCALE_OUT_OF_RANGE,
          "logScale is "
              + spec.logScale()
              + ", must be in [1, "
              + (moduli.getFirst().bitLength() - 1)
              + "]");
    }
    return new Parameters(spec, moduli, logQ, logQ <= maxLogQ);
  }

  /** For each bit size, the largest primes of that size in turn, so the chain has no repeats. */
  private static List<Modulus> generatePrimes(ParameterSpec spec)
      throws InvalidParametersException {
    Map<Integer, Integer> needed = new HashMap<>();
    for (int bits : spec.primeBits()) {
      needed.merge(bits, 1, Integer::sum);
    }
    Map<Integer, List<Long>> available = new HashMap<>();
    for (Map.Entry<Integer, Integer> e : needed.entrySet()) {
      try {
        available.put(e.getKey(), Primes.nttPrimes(e.getKey(), 1 << spec.logN(), e.getValue()));
      } catch (IllegalArgumentException tooFew) {
        throw new InvalidParametersException(Reason.NOT_ENOUGH_PRIMES, tooFew.getMessage());
      }
    }
    Map<Integer, Integer> used = new HashMap<>();
    List<Modulus> moduli = new ArrayList<>(spec.primeBits().size());
    for (int bits : spec.primeBits()) {
      int index = used.merge(bits, 1, Integer::sum) - 1;
      moduli.add(Modulus.of(available.get(bits).get(index)));
    }
    return moduli;
  }

  private static String fingerprintOf(ParameterSpec spec, List<Modulus> moduli) {
    ByteBuffer buffer = ByteBuffer.allocate(8 + 8 * moduli.size());
    buffer.putInt(spec.logN()).putInt(spec.logScale());
    moduli.forEach(q -> buffer.putLong(q.value()));
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(buffer.array());
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  public ParameterSpec spec() {
    return spec;
  }

  /** log2 of the ring degree. Range: [11, 16]. */
  public int logN() {
    return spec.logN();
  }

  /** The ring degree N. */
  public int ringDegree() {
    return 1 << spec.logN();
  }

  /** The RNS primes, bottom first. */
  public List<Modulus> moduli() {
    return moduli;
  }

  /** The NTT of each prime, in the order of {@link #moduli()}. */
  public List<NegacyclicNtt> ntts() {
    return ntts;
  }

  /** Number of RNS primes (limbs). */
  public int limbCount() {
    return moduli.size();
  }

  /** log2 of the product of all primes. */
  public double logQ() {
    return logQ;
  }

  /** The default encoding scale Δ = 2^logScale. */
  public double scale() {
    return Math.scalb(1.0, spec.logScale());
  }

  /** True when log2 Q is within the HE Standard's 128-bit bound for this ring degree. */
  public boolean isSecure128() {
    return secure;
  }

  /**
   * First 8 bytes of SHA-256 over (logN, logScale, primes), as 16 hex digits. Serialized keys and
   * ciphertexts carry it so they are never used with other parameters.
   */
  public String fingerprint() {
    return fingerprint;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Parameters p
        && p.fingerprint.equals(fingerprint)
        && p.spec.equals(spec);
  }

  @Override
  public int hashCode() {
    return fingerprint.hashCode();
  }

  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "Parameters[N=2^%d, primes=%s, logQ=%.1f, logScale=%d, %s]",
        spec.logN(),
        spec.primeBits(),
        logQ,
        spec.logScale(),
        secure ? "128-bit" : "INSECURE");
  }
}
