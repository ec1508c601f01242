package io.tensafe.kernels.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.List;
import java.util.function.LongSupplier;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The distributions RLWE needs: ternary secrets and discrete Gaussian errors from a CSPRNG, and
 * uniform polynomials expanded deterministically from a 32-byte seed.
 *
 * <p>Ternary and Gaussian samples take a fresh 32-byte seed from the caller's {@link SecureRandom}
 * and expand it with the same AES-256-CTR generator (domains "tern" and "gaus").
 *
 * <p>Uniform expansion: AES-256 in counter mode keyed by the seed, with a 16-byte IV holding a
 * domain tag (bytes 0-7) and the limb index (bytes 8-11), bytes 12-15 the block counter. Each
 * 64-bit big-endian word is masked to bitLength(q) bits and rejected if at least q, so every
 * residue is exactly uniform in [0, q). The same seed always gives the same polynomial, which is
 * what lets a ciphertext ship its c1 as a seed.
 */
public final class Samplers {
  /** Standard deviation of the error distribution, σ = 3.2 (HE Standard). */
  public static final double ERROR_SIGMA = 3.2;

  /** Errors are cut at ±ceil(6σ) = ±20, as in the HE Standard's analysis (mass beyond: < 2^-28). */
  public static final int ERROR_BOUND = 20;

  /** Size of a uniform-expansion seed in bytes. */
  public static final int SEED_BYTES = 32;

  private static final long[] GAUSSIAN_CDT = cumulativeTable();

  /** Reads 8 keystream bytes as one big-endian word, as the byte-by-byte definition does. */
  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private Samplers() {}

  private static final long TERNARY_DOMAIN = 0x7465726eL; // "tern"
  private static final long GAUSSIAN_DOMAIN = 0x67617573L; // "gaus"
  private static final long WIDE_DOMAIN = 0x77696465L; // "wide"
  private static final long NORMAL_DOMAIN = 0x6e6f726dL; // "norm"

  /**
   * N coefficients uniform in {-1, 0, 1}. Draws a 32-byte seed from {@code random} and expands it
   * with AES-256-CTR, so a sample costs one short read of the caller's CSPRNG.
   */
  public static long[] ternary(int degree, SecureRandom random) {
    long[] s = new long[degree];
    Cipher stream = keystream(freshSeed(random), TERNARY_DOMAIN, 0);
    int filled = 0;
    while (filled < degree) {
      byte[] buffer = nextKeystream(stream, degree);
      for (int i = 0; i < degree && filled < degree; i++) {
        int b = Byte.toUnsignedInt(buffer[i]);
        if (b < 255) { // 255 = 3·85: reject the one value that would bias the residue
          s[filled++] = b % 3 - 1;
        }
      }
    }
    return s;
  }

  /**
   * N coefficients from the discrete Gaussian of σ = 3.2, cut at ±{@link #ERROR_BOUND}. Draws a
   * 32-byte seed from {@code random} and expands it with AES-256-CTR: 8 bytes per sample, 63 bits
   * for the magnitude and 1 for the sign.
   */
  public static long[] gaussian(int degree, SecureRandom random) {
    return gaussianFromSeed(degree, freshSeed(random));
  }

  /**
   * The Gaussian sample that {@link #gaussian} draws for a seed it took from its CSPRNG; lets a
   * caller draw seeds in order and expand them on several threads. The seed must be fresh CSPRNG
   * output used for nothing else.
   *
   * @param seed exactly {@link #SEED_BYTES} bytes
   */
  public static long[] gaussianFromSeed(int degree, byte[] seed) {
    if (seed.length != SEED_BYTES) {
      throw new IllegalArgumentException(
          "seed must be " + SEED_BYTES + " bytes, was " + seed.length);
    }
    long[] u = new long[degree]; // 63 uniform bits per sample
    long[] sign = new long[degree]; // +1 or -1
    byte[] bytes = nextKeystream(keystream(seed, GAUSSIAN_DOMAIN, 0), 8 * degree);
    for (int i = 0; i < degree; i++) {
      long word = (long) BIG_ENDIAN_LONG.get(bytes, 8 * i);
      u[i] = word >>> 1;
      sign[i] = 1 - 2 * (word & 1);
    }
    // Every sample scans the whole table, so the time taken does not depend on the samples; the
    // table is the outer loop so the inner one runs over arrays (the JIT vectorises it).
    long[] magnitude = new long[degree];
    for (long threshold : GAUSSIAN_CDT) {
      for (int i = 0; i < degree; i++) {
        magnitude[i] += (threshold - u[i] - 1) >>> 63; // +1 while u >= threshold
      }
    }
    for (int i = 0; i < degree; i++) {
      magnitude[i] *= sign[i];
    }
    return magnitude;
  }

  /** A copy of the error distribution's cumulative table ({@link #cumulativeTable}). */
  static long[] gaussianCumulativeTable() {
    return GAUSSIAN_CDT.clone();
  }

  /**
   * Cumulative table over |X| for the discrete Gaussian: entry k is P(|X| <= k)·2^63, so the
   * magnitude of a sample is the number of entries at or below a uniform 63-bit value. Zero gets
   * its mass once and every other magnitude twice (split by the sign bit), so the signed result is
   * the centred discrete Gaussian with weights exp(-x²/(2σ²)).
   */
  private static long[] cumulativeTable() {
    double[] weight = new double[ERROR_BOUND + 1];
    double total = 0;
    for (int k = 0; k <= ERROR_BOUND; k++) {
      weight[k] = Math.exp(-(double) k * k / (2 * ERROR_SIGMA * ERROR_SIGMA)) * (k == 0 ? 1 : 2);
      total += weight[k];
    }
    long[] table = new long[ERROR_BOUND];
    double cumulative = 0;
    for (int k = 0; k < ERROR_BOUND; k++) {
      cumulative += weight[k] / total;
      table[k] = (long) Math.min(cumulative * 0x1p63, (double) Long.MAX_VALUE);
    }
    return table;
  }

  /**
   * The uniform polynomial of {@code moduli.size()} limbs expanded from {@code seed}, read directly
   * as NTT values (the NTT of a uniform polynomial is uniform).
   *
   * @param seed exactly {@link #SEED_BYTES} bytes
   * @param domain separates independent expansions of one seed (e.g. different key components)
   */
  public static RnsPoly uniformFromSeed(
      byte[] seed, long domain, List<Modulus> moduli, int degree) {
    if (seed.length != SEED_BYTES) {
      throw new IllegalArgumentException(
          "seed must be " + SEED_BYTES + " bytes, was " + seed.length);
    }
    long[][] limbs = new long[moduli.size()][degree];
    for (int l = 0; l < moduli.size(); l++) {
      fillUniform(limbs[l], moduli.get(l), keystream(seed, domain, l));
    }
    return RnsPoly.wrap(limbs, true);
  }

  /**
   * {@code count} uniform integers in [0, bound), expanded from {@code seed} with AES-256-CTR by
   * rejection on {@code bound.bitLength()} bits: element 2i is value i's high word, 2i + 1 its low
   * word (unsigned). For flooding noise on the node (private mode).
   *
   * @param bound in [1, 2^126)
   */
  public static long[] uniformBelowFromSeed(byte[] seed, BigInteger bound, int count) {
    if (bound.signum() <= 0 || bound.bitLength() > 126) {
      throw new IllegalArgumentException("bound must be in [1, 2^126)");
    }
    int bits = bound.bitLength();
    long boundHigh = bound.shiftRight(64).longValue();
    long boundLow = bound.longValue();
    long highMask = bits > 64 ? (1L << (bits - 64)) - 1 : 0;
    long lowMask = bits >= 64 ? -1L : (1L << bits) - 1;
    Cipher cipher = keystream(seed, WIDE_DOMAIN, 0);
    long[] out = new long[2 * count];
    int filled = 0;
    while (filled < count) {
      int draws = Math.max(8, 2 * (count - filled));
      byte[] block = nextKeystream(cipher, 16 * draws);
      for (int d = 0; d < draws && filled < count; d++) {
        long high = (long) BIG_ENDIAN_LONG.get(block, 16 * d) & highMask;
        long low = (long) BIG_ENDIAN_LONG.get(block, 16 * d + 8) & lowMask;
        boolean below =
            high < boundHigh || (high == boundHigh && Long.compareUnsigned(low, boundLow) < 0);
        if (below) {
          out[2 * filled] = high;
          out[2 * filled + 1] = low;
          filled++;
        }
      }
    }
    return out;
  }

  /**
   * {@code count} standard normal values expanded from {@code seed} with AES-256-CTR: Box–Muller,
   * one pair per {@link #normalPairFromWords} call on the keystream read as consecutive big-endian
   * 64-bit words. Not constant time: for noise whose scale is public (the DP noise).
   *
   * <p>Distribution: N(0, 1) with the tail the ρ-zCDP accountant assumes. The radius's uniform has
   * full double resolution down to 2^-1074, so P(|pair| > r) = e^{-r²/2} to a relative 2^-52 for
   * every r up to sqrt(2·1022·ln 2) ≈ 37.6; the radius never exceeds sqrt(2·1074·ln 2) ≈ 38.6, and
   * the mass whose law is not exact (u1 < 2^-1022, rounded into the subnormals) is 2^-1022 per
   * pair, the most extra δ the cut can cost per draw (the old 53-bit u1 cut at 8.57, mass 2^-53).
   * Deterministic in {@code seed}: the same seed always gives the same values.
   *
   * <p>Range: finite, |value| ≤ 38.6.
   */
  public static double[] normalsFromSeed(byte[] seed, int count) {
    int pairs = (count + 1) / 2;
    KeystreamWords words = new KeystreamWords(keystream(seed, NORMAL_DOMAIN, 0), 3 * pairs);
    double[] out = new double[2 * pairs];
    for (int i = 0; i < pairs; i++) {
      normalPairFromWords(words, out, 2 * i);
    }
    return count == out.length ? out : java.util.Arrays.copyOf(out, count);
  }

  /** Uniforms below 2^-MAX_LEADING_ZEROS are 2^-1074, the smallest positive double. */
  private static final int MAX_LEADING_ZEROS = 1073;

  /**
   * One Box–Muller pair from {@code words}, written to {@code out[at]} and {@code out[at + 1]}.
   * Reads, in order: the radius's exponent words (until one is nonzero: z leading zero bits in all,
   * so the uniform's binade is [2^-(z+1), 2^-z)), one word for its mantissa (top 52 bits), one word
   * for the angle (top 53 bits). Three words except with probability 2^-64.
   *
   * <p>The uniform u1 = (1 + m·2^-52)·2^-(z+1) lies in (0, 1) with the density of a uniform to a
   * relative 2^-52 in every binade above 2^-1022 (Range: [2^-1074, 1 − 2^-53]), so the radius
   * sqrt(−2 ln u1) follows the Rayleigh law out to ≈ 37.6, not the ≈ 8.57 that a 53-bit fixed-point
   * u1 allows. Package-private so a test can feed the rare events (leading zero words) directly.
   */
  static void normalPairFromWords(LongSupplier words, double[] out, int at) {
    int leadingZeros = 0;
    long word = words.getAsLong();
    while (word == 0 && leadingZeros < MAX_LEADING_ZEROS) {
      leadingZeros += 64;
      word = words.getAsLong();
    }
    leadingZeros = Math.min(leadingZeros + Long.numberOfLeadingZeros(word), MAX_LEADING_ZEROS);
    long mantissa = words.getAsLong() >>> 12;
    long angle = words.getAsLong() >>> 11;
    // (2^52 + m)·2^(-53-z): exact for z ≤ 1021, rounded into the subnormals below (never to 0).
    double u1 = Math.scalb((double) ((1L << 52) | mantissa), -53 - leadingZeros);
    double u2 = angle * 0x1p-53;
    double radius = Math.sqrt(-2 * Math.log(u1));
    out[at] = radius * Math.cos(2 * Math.PI * u2);
    out[at + 1] = radius * Math.sin(2 * Math.PI * u2);
  }

  /**
   * A keystream read as big-endian 64-bit words: {@code expected} words in one AES call, then
   * further blocks of 8 words as needed (the continuation of the same counter-mode stream, so the
   * words do not depend on how they were fetched).
   */
  private static final class KeystreamWords implements LongSupplier {
    private static final int REFILL_WORDS = 8;
    private final Cipher cipher;
    private byte[] block;
    private int length;
    private int offset;

    KeystreamWords(Cipher cipher, int expected) {
      this.cipher = cipher;
      this.length = 8 * Math.max(expected, 1);
      this.block = nextKeystream(cipher, length);
    }

    @Override
    public long getAsLong() {
      if (offset == length) {
        length = 8 * REFILL_WORDS;
        block = nextKeystream(cipher, length);
        offset = 0;
      }
      long word = (long) BIG_ENDIAN_LONG.get(block, offset);
      offset += 8;
      return word;
    }
  }

  private static byte[] freshSeed(SecureRandom random) {
    byte[] seed = new byte[SEED_BYTES];
    random.nextBytes(seed);
    return seed;
  }

  /**
   * One AES/CTR instance per thread, re-keyed by every {@link #keystream} call: looking a cipher up
   * through the provider framework takes a lock, which serialised sampling on many threads.
   */
  private static final ThreadLocal<Cipher> AES_CTR =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Cipher.getInstance("AES/CTR/NoPadding");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("AES/CTR is required by every Java platform", e);
            }
          });

  /**
   * AES-256-CTR keyed by {@code seed}; the IV holds {@code domain} (bytes 0-7) and {@code index}
   * (bytes 8-11), and bytes 12-15 count blocks. Encrypting zeros yields the keystream. The returned
   * cipher is this thread's and stays valid until the thread's next call.
   */
  private static Cipher keystream(byte[] seed, long domain, int index) {
    byte[] iv = new byte[16];
    for (int b = 0; b < 8; b++) {
      iv[b] = (byte) (domain >>> (56 - 8 * b));
    }
    iv[8] = (byte) (index >>> 24);
    iv[9] = (byte) (index >>> 16);
    iv[10] = (byte) (index >>> 8);
    iv[11] = (byte) index;
    try {
      Cipher aes = AES_CTR.get();
      aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(seed, "AES"), new IvParameterSpec(iv));
      return aes;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR is required by every Java platform", e);
    }
  }

  /**
   * This thread's reusable buffers: [0] stays all zeros (the plaintext whose encryption is the
   * keystream), [1] receives the keystream. Allocating both for every sample cost more than the AES
   * itself.
   */
  private static final ThreadLocal<byte[][]> KEYSTREAM_BUFFERS =
      ThreadLocal.withInitial(() -> new byte[][] {new byte[0], new byte[0]});

  /**
   * The next {@code length} keystream bytes of {@code cipher}, in positions [0, length) of this
   * thread's buffer, which the thread's next call overwrites.
   */
  private static byte[] nextKeystream(Cipher cipher, int length) {
    byte[][] buffers = KEYSTREAM_BUFFERS.get();
    if (buffers[0].length < length) {
      buffers[0] = new byte[length];
      buffers[1] = new byte[length];
    }
    try {
      int written = cipher.update(buffers[0], 0, length, buffers[1], 0);
      if (written != length) {
        throw new IllegalStateException("AES/CTR returned " + written + " of " + length + " bytes");
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR output buffer too small", e);
    }
    return buffers[1];
  }

  private static void fillUniform(long[] limb, Modulus modulus, Cipher keystream) {
    long q = modulus.value();
    long mask = (1L << modulus.bitLength()) - 1;
    int length = 8 * (limb.length + limb.length / 16 + 8); // one update, usually
    int filled = 0;
    while (filled < limb.length) {
      byte[] block = nextKeystream(keystream, length);
      for (int off = 0; off + 8 <= length && filled < limb.length; off += 8) {
        long word = (long) BIG_ENDIAN_LONG.get(block, off) & mask;
        if (word < q) {
          limb[filled++] = word;
        }
      }
    }
  }
}
