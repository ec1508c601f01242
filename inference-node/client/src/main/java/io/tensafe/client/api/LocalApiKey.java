package io.tensafe.client.api;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The one key the local endpoint accepts ({@code Authorization: Bearer KEY}): random per run unless
 * a script sets one. It keeps the other processes and users of the machine from spending the
 * marketplace key that the client holds.
 *
 * <p>Invariants: {@link #verify} takes the same time wherever a presented key differs from this one
 * (it compares SHA-256 digests with {@link MessageDigest#isEqual}); a refusal never quotes the
 * presented key; the key itself is printed once, at start, and never logged.
 */
public final class LocalApiKey {
  /** What a generated key starts with. */
  public static final String PREFIX = "tsc_";

  /** The random bytes in a generated key (256 bits). */
  static final int RANDOM_BYTES = 32;

  /** The fewest characters of a key a script sets. */
  public static final int MIN_CHARS = 16;

  /** The most characters of a key a script sets. */
  public static final int MAX_CHARS = 256;

  private final String value;
  private final byte[] digest;

  private LocalApiKey(String value) {
    this.value = value;
    this.digest = sha256(value);
  }

  /** A fresh key: {@link #PREFIX} and {@link #RANDOM_BYTES} random bytes in base64url. */
  public static LocalApiKey generate(SecureRandom random) {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return new LocalApiKey(PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
  }

  /**
   * A key a script chose.
   *
   * @throws IllegalArgumentException unless it is {@link #MIN_CHARS} to {@link #MAX_CHARS} visible
   *     ASCII characters (no spaces), which a header carries unchanged
   */
  public static LocalApiKey of(String key) {
    boolean visible = key.chars().allMatch(c -> c > 0x20 && c < 0x7F);
    if (!visible || key.length() < MIN_CHARS || key.length() > MAX_CHARS) {
      throw new IllegalArgumentException(
          "the local API key must be "
              + MIN_CHARS
              + " to "
              + MAX_CHARS
              + " visible ASCII characters without spaces; it has "
              + key.length()
              + (visible ? "" : ", some of them not visible ASCII"));
    }
    return new LocalApiKey(key);
  }

  /** The key, to print once as {@code OPENAI_API_KEY=}. */
  public String value() {
    return value;
  }

  /** A request without this key. */
  public static final class Refused extends GeneralSecurityException {
    Refused(String message) {
      super(message);
    }
  }

  /**
   * Returns if {@code authorization} (the header's value, or null) is {@code Bearer} and this key;
   * the scheme's case does not matter.
   *
   * @throws Refused naming what is missing or wrong, never the presented key
   */
  public void verify(String authorization) throws Refused {
    if (authorization == null || authorization.isBlank()) {
      throw new Refused(
          "no API key: send Authorization: Bearer KEY with the OPENAI_API_KEY that ./tensafe"
              + " client printed");
    }
    String header = authorization.strip();
    int space = header.indexOf(' ');
    if (space < 0 || !header.substring(0, space).equalsIgnoreCase("Bearer")) {
      throw new Refused(
          "the Authorization header must be Bearer KEY, with the OPENAI_API_KEY that ./tensafe"
              + " client printed");
    }
    if (!MessageDigest.isEqual(sha256(header.substring(space + 1).strip()), digest)) {
      throw new Refused(
          "incorrect API key: this endpoint takes only the OPENAI_API_KEY that ./tensafe client"
              + " printed");
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Never the key: a string of this object may reach a log. */
  @Override
  public String toString() {
    return "LocalApiKey[redacted]";
  }
}
