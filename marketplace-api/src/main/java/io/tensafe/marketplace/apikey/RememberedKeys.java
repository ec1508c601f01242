package io.tensafe.marketplace.apikey;

import jakarta.enterprise.context.ApplicationScoped;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * API keys this replica verified in the last {@link #LIFETIME_NANOS}, so that an admission need not
 * read the key before its one database call, which checks the key again ({@code admit}, migration
 * V29). Holds each key's principal and the SHA-256 of its secret, never the secret; at most {@link
 * #CAPACITY} keys (all are forgotten when it is full). A key's scope and price cap never change
 * after it is created, so only its revocation and suspensions can be out of date here, and those
 * the admission's call and {@link RememberedKeyErrors} check. Thread-safe.
 */
@ApplicationScoped
public class RememberedKeys {
  /** How long a verified key is remembered: one minute, in nanoseconds. */
  static final long LIFETIME_NANOS = 60_000_000_000L;

  /** The most keys remembered at once. */
  static final int CAPACITY = 10_000;

  private record Remembered(ApiKeyPrincipal key, byte[] secretSha256, long atNanos) {}

  private final ConcurrentHashMap<String, Remembered> byPrefix = new ConcurrentHashMap<>();

  /** The principal of the key with this prefix, if remembered and its secret hashes the same. */
  Optional<ApiKeyPrincipal> recall(String prefix, byte[] secretSha256) {
    Remembered r = byPrefix.get(prefix);
    if (r == null) {
      return Optional.empty();
    }
    if (System.nanoTime() - r.atNanos() > LIFETIME_NANOS) {
      byPrefix.remove(prefix, r);
      return Optional.empty();
    }
    return MessageDigest.isEqual(secretSha256, r.secretSha256())
        ? Optional.of(r.key())
        : Optional.empty();
  }

  /** Remembers a key the database just verified. */
  void remember(ApiKeyPrincipal key, byte[] secretSha256) {
    if (byPrefix.size() >= CAPACITY) {
      byPrefix.clear();
    }
    byPrefix.put(key.prefix(), new Remembered(key, secretSha256.clone(), System.nanoTime()));
  }

  /** Forgets a key found unusable: its next request reads the database. */
  public void forget(ApiKeyPrincipal key) {
    byPrefix.remove(key.prefix());
  }
}
