package io.tensafe.marketplace.creator;

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
  @JdbcTypeCode(SqlTypes.CHAR)
  public String keyId;

  public UUID creatorId;

  /** The canonical public key file (TGSP v2 §3.1) as registered. */
  public String document;

  public OffsetDateTime registeredAt;

  public UUID registeredBy;

  public OffsetDateTime revokedAt;

  public UUID revokedBy;
}
