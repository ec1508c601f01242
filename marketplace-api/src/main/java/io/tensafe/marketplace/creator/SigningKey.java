package io.tensafe.marketplace.creator;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** A creator's registered hybrid signing key (Ed25519 + ML-DSA-65); revocation is permanent. */
@Entity
@Table(name = "creator_signing_key")
public class SigningKey {
  @Id
  @Column(name = "key_id")
  @JdbcTypeCode(SqlTypes.CHAR)
  public String keyId;

  @Column(name = "creator_id")
  public UUID creatorId;

  /** The canonical public key file (TGSP v2 §3.1) as registered. */
  public String document;

  @Column(name = "registered_at")
  public OffsetDateTime registeredAt;

  @Column(name = "registered_by")
  public UUID registeredBy;

  @Column(name = "revoked_at")
  public OffsetDateTime revokedAt;

  @Column(name = "revoked_by")
  public UUID revokedBy;
}
