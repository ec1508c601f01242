package io.tensafe.marketplace.audit;

import io.tensafe.marketplace.identity.AppUser;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;

/** Records state changes made by people, in the caller's transaction. */
@ApplicationScoped
public class AuditLog {
  @Inject EntityManager em;

  /**
   * Appends one row.
   *
   * @param detailsJson a JSON object with what changed (never secrets)
   */
  public void record(
      AppUser actor, String action, String targetType, String targetId, String detailsJson) {
    AuditEntry e = new AuditEntry();
    e.at = OffsetDateTime.now();
    e.actorUserId = actor.id;
    e.actorSubject = actor.oidcSubject;
    e.action = action;
    e.targetType = targetType;
    e.targetId = targetId;
    e.details = detailsJson;
    em.persist(e);
  }
}
