package io.tensafe.marketplace.admin;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.Map;

/**
 * Admin suspensions across tenants. A suspended creator cannot upload and drops out of the
 * catalogue with all its adapters; a suspended adapter leaves the catalogue; a suspended API key or
 * node is refused at once, and a suspended node binds its credential's other nodes; a suspended
 * organisation's API keys and the nodes it operates are refused at once (migration V31).
 */
@ApplicationScoped
public class SuspensionService {
  /** Kind → (table, key column). Keys are the public ids used in URLs. */
  private static final Map<String, String[]> KINDS =
      Map.of(
          "creators", new String[] {"creator", "creator_ref"},
          "adapters", new String[] {"adapter", "adapter_ref"},
          "api-keys", new String[] {"api_key", "prefix"},
          "nodes", new String[] {"node", "id::text"},
          "organisations", new String[] {"organisation", "slug"},
          "users", new String[] {"app_user", "oidc_subject"});

  @Inject EntityManager em;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  /** Sets or clears {@code suspended_at}; 404 if nothing of that kind has this id. */
  @Transactional
  public SuspensionState set(String kind, String id, boolean suspended) {
    String[] target = KINDS.get(kind);
    if (target == null) {
      throw ProblemTypes.notFound("kind " + kind);
    }
    int rows =
        em.createNativeQuery(
                "UPDATE " + target[0] + " SET suspended_at = :at WHERE " + target[1] + " = :id")
            .setParameter("at", suspended ? OffsetDateTime.now() : null)
            .setParameter("id", id)
            .executeUpdate();
    if (rows == 0) {
      throw ProblemTypes.notFound(kind + " " + id);
    }
    audit.record(current.user(), kind + (suspended ? ".suspend" : ".unsuspend"), kind, id, "{}");
    return new SuspensionState(kind, id, suspended);
  }
}
