package io.tensafe.marketplace.fleet;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A node fleet: packages are encrypted to its public KEM key; only its nodes hold the private one.
 */
@Entity
@Table(name = "node_fleet")
public class NodeFleet {
  @Id public UUID id;

  @Column(name = "fleet_ref")
  public String fleetRef;

  @Column(name = "key_id")
  @JdbcTypeCode(SqlTypes.CHAR)
  public String keyId;

  /** The canonical fleet public key file (X25519 + ML-KEM-768). */
  public String document;

  @Column(name = "created_at")
  public OffsetDateTime createdAt;

  @Column(name = "retired_at")
  public OffsetDateTime retiredAt;
}
