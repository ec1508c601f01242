package io.tensafe.kernels.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Counter-based sampling that every backend computes identically (issue 25): each value is a fixed
 * function of a 32-byte session key, a domain, a token index, a limb index and the value's own
 * position, so a GPU thread can compute any coefficient on its own and the CPU reference and the
 * GPU produce the same residues word for word.
 *
 * <p>Generator: the ChaCha20 block function of RFC 8439, keyed by the session key, with the 96-bit
 * nonce {@code (domain, token, limb)} as three little-endian 32-bit words and the 32-bit block
 * counter starting at 0. Its keystream is read as little-endian 64-bit words {@code w[0], w[1],
 * ...} (word k is keystream bytes {@code 8k..8k+7}).
 *
 * <ul>
 *   <li><b>Uniform residues</b> ({@link #uniform}, domain {@link #UNIFORM_DOMAIN}): coefficient
 *       {@code i} of limb {@code l} is {@code (w[3i]·2^128 + w[3i+1]·2^64 + w[3i+2]) mod q_l}, a
 *       192-bit integer reduced modulo a prime below 2^60: statistical distance from uniform below
 *       {@code 2^-132} per coefficient, with no rejection, so the position of every coefficient's
 *       words is fixed.
 *   <li><b>Errors</b> ({@link #errors}, domain {@link #ERROR_DOMAIN}, limb 0): coefficient {@code
 *       i} is the discrete Gaussian of σ = {@value Samplers#ERROR_SIGMA} cut at ±{@value
 *       Samplers#ERROR_BOUND}, from the one word {@code w[i]}: its bit 0 is the sign, its upper 63
 *       bits are compared, all of them, with the cumulative table {@link #gaussianTable()} (the
 *       same table {@link Samplers#gaussian} uses), so the time taken does not depend on the value.
 * </ul>
 *
 * <p>The CPU computes the keystream with the JDK's {@code ChaCha20} cipher (intrinsified on x86);
 * {@link #block} is the block function written out, the model the CUDA kernel follows and the
 * tests' independent reference. Keys are session secrets owned by the party that encrypts (the node
 * in hosted mode); a key must be fresh CSPRNG output, and a (key, domain, token, limb) is used for
 * one polynomial only.
 */
public final class CounterSampler {
  /** Size of a session key, in bytes. */
  public static final int KEY_BYTES = 32;

  /** Nonce word 0 of the uniform polynomials (c1): ASCII "unif" read little-endian. */
  public static final int UNIFORM_DOMAIN = 0x66696e75;

  /** Nonce word 0 of the error polynomials: ASCII "errs" read little-endian. */
  public static final int ERROR_DOMAIN = 0x73727265;

  /** Keystream words per uniform coefficient. */
  public static final int WORDS_PER_UNIFORM = 3;

  private static final VarHandle LITTLE_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LITTLE_ENDIAN_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private CounterSampler() {}

  /**
   * Limb {@code limb}'s uniform polynomial of {@code token}: {@code out[i]} in {@code [0, q)} for
   * every {@code i < out.length}, as the class comment defines it.
   *
   * @param key exactly {@link #KEY_BYTES} bytes
   * @param token the token's index in the session, any int
   * @param limb the limb's index, any int (it only selects the stream)
   */
  public static void uniform(byte[] key, int token, int limb, Modulus q, long[] out) {
    byte[] stream =
        keystream(key, UNIFORM_DOMAIN, token, limb, 8L * WORDS_PER_UNIFORM * out.length);
    for (int i = 0; i < out.length; i++) {
      int at = 8 * WORDS_PER_UNIFORM * i;
      long top = (long) LITTLE_ENDIAN_LONG.get(stream, at);
      long middle = (long) LITTLE_ENDIAN_LONG.get(stream, at + 8);
      long bottom = (long) LITTLE_ENDIAN_LONG.get(stream, at + 16);
      out[i] = reduce192(q, top, middle, bottom);
    }
  }

  /**
   * {@code (top·2^128 + middle·2^64 + bottom) mod q} for unsigned words, by Horner's rule on {@link
   * Modulus#reduce128}. Range: [0, q).
   */
  public static long reduce192(Modulus q, long top, long middle, long bottom) {
    long x = q.reduce(top);
    x = q.reduce128(x, middle);
    return q.reduce128(x, bottom);
  }

  /**
   * The error polynomial of {@code token}: {@code degree} signed coefficients in {@code [-20, 20]},
   * as the class comment defines them.
   *
   * @param key exactly {@link #KEY_BYTES} bytes
   */
  public static long[] errors(byte[] key, int token, int degree) {
    byte[] stream = keystream(key, ERROR_DOMAIN, token, 0, 8L * degree);
    long[] table = gaussianTable();
    long[] out = new long[degree];
    for (int i = 0; i < degree; i++) {
      out[i] = gaussian((long) LITTLE_ENDIAN_LONG.get(stream, 8 * i), table);
    }
    return out;
  }

  /**
   * One error coefficient from its keystream word: bit 0 the sign, the upper 63 bits counted
   * against every entry of {@code table}. Range: [-{@value Samplers#ERROR_BOUND}, {@value
   * Samplers#ERROR_BOUND}].
   */
  public static long gaussian(long word, long[] table) {
    long u = word >>> 1;
    long magnitude = 0;
    for (long threshold : table) {
      magnitude += (threshold - u - 1) >>> 63; // +1 while u >= threshold
    }
    return (1 - 2 * (word & 1)) * magnitude;
  }

  /**
   * The cumulative table the errors are read against (a copy): entry k is {@code P(|X| <= k)·2^63}
   * for k in [0, {@value Samplers#ERROR_BOUND}). A GPU backend uploads exactly these words.
   */
  public static long[] gaussianTable() {
    return Samplers.gaussianCumulativeTable();
  }

  /**
   * {@code bytes} bytes of the keystream of {@code (key, domain, token, limb)} from block 0, by the
   * JDK's ChaCha20 (RFC 8439; decrypting zeros, which is the keystream itself).
   */
  static byte[] keystream(byte[] key, int domain, int token, int limb, long bytes) {
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException("key must be " + KEY_BYTES + " bytes, was " + key.length);
    }
    if (bytes > 64L * 0x7fffffffL || bytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("at most 2^31 bytes of keystream per stream");
    }
    try {
      Cipher chacha = Cipher.getInstance("ChaCha20");
      chacha.init(
          Cipher.DECRYPT_MODE,
          new SecretKeySpec(key, "ChaCha20"),
          new ChaCha20ParameterSpec(nonce(domain, token, limb), 0));
      return chacha.doFinal(new byte[(int) bytes]);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("ChaCha20 is part of every Java 25 runtime", e);
    }
  }

  /** The nonce {@code (domain, token, limb)}: three little-endian 32-bit words. */
  static byte[] nonce(int domain, int token, int limb) {
    byte[] nonce = new byte[12];
    LITTLE_ENDIAN_INT.set(nonce, 0, domain);
    LITTLE_ENDIAN_INT.set(nonce, 4, token);
    LITTLE_ENDIAN_INT.set(nonce, 8, limb);
    return nonce;
  }

  /**
   * The ChaCha20 block function (RFC 8439, section 2.3), written out: the 16 little-endian words of
   * block {@code counter} of the stream of {@code key} (8 words) and {@code nonce} (3 words).
   */
  public static int[] block(int[] key, int counter, int[] nonce) {
    int[] state = {
      0x61707865,
      0x3320646e,
      0x79622d32,
      0x6b206574, // "expand 32-byte k"
      key[0],
      key[1],
      key[2],
      key[3],
      key[4],
      key[5],
      key[6],
      key[7],
      counter,
      nonce[0],
      nonce[1],
      nonce[2]
    };
    int[] x = state.clone();
    for (int round = 0; round < 10; round++) {
      quarterRound(x, 0, 4, 8, 12);
      quarterRound(x, 1, 5, 9, 13);
      quarterRound(x, 2, 6, 10, 14);
      quarterRound(x, 3, 7, 11, 15);
      quarterRound(x, 0, 5, 10, 15);
      quarterRound(x, 1, 6, 11, 12);
      quarterRound(x, 2, 7, 8, 13);
      quarterRound(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) {
      x[i] += state[i];
    }
    return x;
  }

  private static void quarterRound(int[] x, int a, int b, int c, int d) {
    x[a] += x[b];
    x[d] = Integer.rotateLeft(x[d] ^ x[a], 16);
    x[c] += x[d];
    x[b] = Integer.rotateLeft(x[b] ^ x[c], 12);
    x[a] += x[b];
    x[d] = Integer.rotateLeft(x[d] ^ x[a], 8);
    x[c] += x[d];
    x[b] = Integer.rotateLeft(x[b] ^ x[c], 7);
  }

  /** The key's 8 little-endian words, as {@link #block} takes them. */
  public static int[] keyWords(byte[] key) {
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException("key must be " + KEY_BYTES + " bytes, was " + key.length);
    }
    int[] words = new int[8];
    for (int i = 0; i < 8; i++) {
      words[i] = (int) LITTLE_ENDIAN_INT.get(key, 4 * i);
    }
    return words;
  }
}
