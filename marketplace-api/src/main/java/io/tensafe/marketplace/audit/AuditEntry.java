package io.tensafe.marketplace.audit;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** One state change made by a person (append-only). */
@Entity
@Table(name = "audit_log")
public class AuditEntry {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  public Long id;

  public OffsetDateTime at;

  public UUID actorUserId;

  public String actorSubject;

  public String action;

  public String targetType;

  public String targetId;

  @JdbcTypeCode(SqlTypes.JSON)
  public String details;
}
