package io.tensafe.marketplace.audit;

import jakarta.persistence.Column;
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

  @Column(name = "actor_user_id")
  public UUID actorUserId;

  @Column(name = "actor_subject")
  public String actorSubject;

  public String action;

  @Column(name = "target_type")
  public String targetType;

  @Column(name = "target_id")
  public String targetId;

  @JdbcTypeCode(SqlTypes.JSON)
  public String details;
}
