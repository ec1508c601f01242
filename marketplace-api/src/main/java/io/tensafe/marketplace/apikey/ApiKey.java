package io.tensafe.marketplace.apikey;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A client API key. Only the SHA-256 of the secret is stored; the key itself is shown once, at
 * creation. {@code prefix} ({@code tsk_} and 12 hex digits) is its visible, non-secret id.
 */
@Entity
public class ApiKey {
  @Id public UUID id;

  public UUID organisationId;

  public String prefix;

  /** SHA-256 of the whole key string; never returned or logged. */
  public byte[] secretSha256;

  public String name;

  public OffsetDateTime createdAt;

  public UUID createdBy;

  public OffsetDateTime revokedAt;

  public OffsetDateTime suspendedAt;

  @org.hibernate.annotations.JdbcTypeCode(org.hibernate.type.SqlTypes.CHAR)
  public String maxPriceCurrency;

  @Column(name = "max_prompt_micros_per_1k_tokens")
  public Long maxPromptMicrosPer1kTokens;

  @Column(name = "max_completion_micros_per_1k_tokens")
  public Long maxCompletionMicrosPer1kTokens;

  /** The key's price cap, or null. */
  PriceCap priceCap() {
    return maxPriceCurrency == null
        ? null
        : new PriceCap(
            maxPriceCurrency.trim(), maxPromptMicrosPer1kTokens, maxCompletionMicrosPer1kTokens);
  }
}
