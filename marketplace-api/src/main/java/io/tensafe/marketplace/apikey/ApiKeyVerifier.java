package io.tensafe.marketplace.apikey;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Checks a presented API key: well-formed, known prefix, SHA-256 equal in constant time, not
 * revoked, not suspended, the user who created it not suspended, and at least one member of its
 * organisation not suspended (the database function {@code api_key_usable}, migration V29, the one
 * place that rule is written). {@link #verify} reads the database on every call, so a revocation or
 * a suspension takes effect on the very next request; {@link #verifyRemembered} may answer from
 * {@link RememberedKeys}, for endpoints whose every success passes the admission's database call,
 * which checks the key again ({@link KeyConfirmedAtAdmission}).
 */
@ApplicationScoped
public class ApiKeyVerifier {
  private static final Pattern FORMAT = Pattern.compile("tsk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}");

  @Inject AgroalDataSource dataSource;
  @Inject RememberedKeys remembered;

  /**
   * A verified key, and whether it was verified from memory ({@code remembered}: the database was
   * not read, so a revocation since it was remembered is not seen yet).
   */
  public record Verified(ApiKeyPrincipal key, boolean remembered) {}

  /**
   * The key's principal as {@link #verify} decides, or from {@link RememberedKeys} when it was
   * verified there within their lifetime and {@code presented} hashes to the same secret; a key
   * read from the database is remembered.
   */
  public Optional<Verified> verifyRemembered(String presented) {
    if (presented == null || !FORMAT.matcher(presented).matches()) {
      return Optional.empty();
    }
    byte[] sha256 = ApiKeyService.sha256(presented);
    Optional<ApiKeyPrincipal> known = remembered.recall(presented.substring(0, 16), sha256);
    if (known.isPresent()) {
      return Optional.of(new Verified(known.get(), true));
    }
    Optional<ApiKeyPrincipal> read = verify(presented);
    read.ifPresent(k -> remembered.remember(k, sha256));
    return read.map(k -> new Verified(k, false));
  }

  /**
   * The key's principal, or empty when {@code presented} is not a valid, usable key. One read on a
   * connection of its own in autocommit (one round trip, no transaction to commit); the connection
   * is not held for the rest of the request.
   */
  public Optional<ApiKeyPrincipal> verify(String presented) {
    if (presented == null || !FORMAT.matcher(presented).matches()) {
      return Optional.empty();
    }
    Optional<StoredKey> stored = read(presented.substring(0, 16));
    if (stored.isEmpty()) {
      return Optional.empty();
    }
    StoredKey key = stored.get();
    if (!MessageDigest.isEqual(ApiKeyService.sha256(presented), key.secretSha256())
        || !key.usable()) {
      return Optional.empty();
    }
    return Optional.of(
        new ApiKeyPrincipal(
            key.id(),
            key.prefix(),
            key.organisationId(),
            scope(key.scope()),
            key.capCurrency() == null
                ? null
                : new PriceCap(
                    key.capCurrency().trim(),
                    key.capPromptMicrosPer1kTokens(),
                    key.capCompletionMicrosPer1kTokens())));
  }

  private static final String KEY_BY_PREFIX =
      """
      SELECT k.id, k.prefix, k.organisation_id, k.secret_sha256, api_key_usable(k.id),
             (SELECT coalesce(string_agg(s.adapter_id::text, ','), '')
              FROM api_key_adapter s WHERE s.api_key_id = k.id),
             k.max_price_currency, k.max_prompt_micros_per_1k_tokens,
             k.max_completion_micros_per_1k_tokens
      FROM api_key k WHERE k.prefix = ?
      """;

  /** The stored key of {@code prefix}, if any. */
  private Optional<StoredKey> read(String prefix) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(KEY_BY_PREFIX)) {
      s.setString(1, prefix);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new StoredKey(
                r.getObject(1, UUID.class),
                r.getString(2),
                r.getObject(3, UUID.class),
                r.getBytes(4),
                r.getBoolean(5),
                r.getString(6),
                r.getString(7),
                r.getObject(8, Long.class),
                r.getObject(9, Long.class)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading the API key failed: " + e.getMessage(), e);
    }
  }

  /**
   * A stored key: {@code usable} when neither it, its creator nor every member of its organisation
   * is revoked or suspended; {@code scope} its adapter ids joined by commas; the cap's three
   * columns are all null or all set (a database check).
   */
  private record StoredKey(
      UUID id,
      String prefix,
      UUID organisationId,
      byte[] secretSha256,
      boolean usable,
      String scope,
      String capCurrency,
      Long capPromptMicrosPer1kTokens,
      Long capCompletionMicrosPer1kTokens) {}

  /**
   * The scope's adapter ids from their comma-joined text (a native array would cost Hibernate an
   * exception per query).
   */
  private static List<UUID> scope(String joined) {
    return joined.isEmpty()
        ? List.of()
        : java.util.Arrays.stream(joined.split(",")).map(UUID::fromString).toList();
  }
}
