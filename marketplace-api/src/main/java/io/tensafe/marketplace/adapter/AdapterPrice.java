package io.tensafe.marketplace.adapter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * One row of a version's price history (append-only: the database refuses updates and deletes).
 * Prices are integer micro-units of {@code currency} per 1000 tokens.
 */
@Entity
public class AdapterPrice {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  public Long id;

  public UUID adapterVersionId;

  @JdbcTypeCode(SqlTypes.CHAR)
  public String currency;

  @Column(name = "prompt_micros_per_1k_tokens")
  public long promptMicrosPer1kTokens;

  @Column(name = "completion_micros_per_1k_tokens")
  public long completionMicrosPer1kTokens;

  /**
   * The private-mode price per 1k tokens processed, prompt and completion alike, or null for the
   * larger hosted one (ADR 0024).
   */
  @Column(name = "private_micros_per_1k_tokens")
  public Long privateMicrosPer1kTokens;

  public OffsetDateTime effectiveFrom;

  public OffsetDateTime createdAt;

  public UUID createdBy;
}
