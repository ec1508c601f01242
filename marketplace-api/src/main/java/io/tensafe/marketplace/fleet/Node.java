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
 * An inference node of a fleet, as it registered itself; healthy while its heartbeats are fresh.
 */
@Entity
@Table(name = "node")
public class Node {
  @Id public UUID id;

  @Column(name = "fleet_id")
  public UUID fleetId;

  @Column(name = "client_id")
  public String clientId;

  public String name;

  @Column(name = "base_models")
  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] baseModels;

  public String accelerator;

  /**
   * Where it accepts generation requests, e.g. {@code http://10.0.0.5:8090}; null: not dispatched
   * to.
   */
  public String endpoint;

  /** The secret presented when dispatching to it (see {@code NodeRegistration}); never shown. */
  @Column(name = "dispatch_token")
  public String dispatchToken;

  @Column(name = "max_concurrency")
  public int maxConcurrency;

  @Column(name = "loaded_adapters")
  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] loadedAdapters;

  @Column(name = "registered_at")
  public OffsetDateTime registeredAt;

  @Column(name = "last_heartbeat_at")
  public OffsetDateTime lastHeartbeatAt;

  /** When the gateway last failed to connect to it; null once it registers or beats again. */
  @Column(name = "unreachable_since")
  public OffsetDateTime unreachableSince;

  /** Why that connection failed, at most 500 characters; null with {@link #unreachableSince}. */
  @Column(name = "unreachable_cause")
  public String unreachableCause;

  @Column(name = "suspended_at")
  public OffsetDateTime suspendedAt;

  /** The served model's shape as {@link NodeModelShape#columns()}, or null if not reported. */
  @Column(name = "model_shape")
  @JdbcTypeCode(SqlTypes.ARRAY)
  public Integer[] modelShape;
}
