package io.tensafe.marketplace.fleet;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A node fleet: packages are encrypted to its public KEM key; only its nodes hold the private one.
 */
@Entity
public class NodeFleet {
  @Id public UUID id;

  public String fleetRef;

  @JdbcTypeCode(SqlTypes.CHAR)
  public String keyId;

  /** The canonical fleet public key file (X25519 + ML-KEM-768). */
  public String document;

  public OffsetDateTime createdAt;

  public OffsetDateTime retiredAt;
}
