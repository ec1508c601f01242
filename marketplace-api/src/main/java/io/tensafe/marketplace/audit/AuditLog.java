package io.tensafe.marketplace.audit;

import io.tensafe.marketplace.identity.AppUser;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;

/** Records state changes made by people, in the caller's transaction. */
@ApplicationScoped
public class AuditLog {
  @Inject AuditEntryRepository entries;

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
    entries.persist(e);
  }
}
