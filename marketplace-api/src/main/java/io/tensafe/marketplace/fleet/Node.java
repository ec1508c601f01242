package io.tensafe.marketplace.fleet;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * An inference node of a fleet, as it registered itself; healthy while its heartbeats are fresh.
 */
@Entity
public class Node {
  @Id public UUID id;

  public UUID fleetId;

  public String clientId;

  public String name;

  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] baseModels;

  public String accelerator;

  /**
   * Where it accepts generation requests, e.g. {@code http://10.0.0.5:8090}; null: not dispatched
   * to.
   */
  public String endpoint;

  /** The secret presented when dispatching to it (see {@code NodeRegistration}); never shown. */
  public String dispatchToken;

  public int maxConcurrency;

  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] loadedAdapters;

  public OffsetDateTime registeredAt;

  public OffsetDateTime lastHeartbeatAt;

  /** When the gateway last failed to connect to it; null once it registers or beats again. */
  public OffsetDateTime unreachableSince;

  /** Why that connection failed, at most 500 characters; null with {@link #unreachableSince}. */
  public String unreachableCause;

  public OffsetDateTime suspendedAt;

  /** The served model's shape as {@link NodeModelShape#columns()}, or null if not reported. */
  @JdbcTypeCode(SqlTypes.ARRAY)
  public Integer[] modelShape;

  /** The served model's experts as {@link NodeExpertShape#columns()}, or null (a dense model). */
  @JdbcTypeCode(SqlTypes.ARRAY)
  public Integer[] modelExperts;
}
