package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Optional;

/**
 * Node credentials (table {@code node_credential}, no entity: each access is one statement) and the
 * one rule that says whether a node may act: the database's {@code usable_node} view and {@code
 * node_credential_usable} function (migration V31). A node is usable only while neither it, nor any
 * node of its credential, nor the organisation operating its credential is suspended.
 *
 * <p>Invariant: every node call (registration, heartbeat, usage report, package download) passes
 * through {@link #requireUsable(Node)} or {@link #requireUsable(String)} before it changes or
 * serves anything, and the dispatch query reads {@code usable_node}.
 */
@ApplicationScoped
public class NodeCredentials {
  /** The token claim naming the organisation that operates a node credential (its slug). */
  public static final String ORGANISATION_CLAIM = "tensafe_organisation";

  @Inject EntityManager em;

  /**
   * Records credential {@code clientId} and, when its token names one, the organisation that
   * operates it; 403 when the named organisation does not exist.
   */
  public void bind(String clientId, Optional<String> organisationSlug) {
    if (organisationSlug.isPresent()) {
      List<?> found =
          em.createNativeQuery("SELECT id FROM organisation WHERE slug = :s")
              .setParameter("s", organisationSlug.get())
              .getResultList();
      if (found.isEmpty()) {
        throw new ApiProblem(
            ProblemKind.FORBIDDEN,
            "the organisation '"
                + organisationSlug.get()
                + "' this credential's token names does not exist");
      }
      em.createNativeQuery(
              """
              INSERT INTO node_credential (client_id, organisation_id) VALUES (:c, :o)
              ON CONFLICT (client_id) DO UPDATE SET organisation_id = EXCLUDED.organisation_id
              """)
          .setParameter("c", clientId)
          .setParameter("o", found.get(0))
          .executeUpdate();
    } else {
      em.createNativeQuery(
              "INSERT INTO node_credential (client_id) VALUES (:c) ON CONFLICT DO NOTHING")
          .setParameter("c", clientId)
          .executeUpdate();
    }
  }

  /** 403 unless credential {@code clientId} may act as a node (before it has a node row). */
  public void requireUsable(String clientId) {
    boolean usable =
        (Boolean)
            em.createNativeQuery("SELECT node_credential_usable(:c)")
                .setParameter("c", clientId)
                .getSingleResult();
    if (!usable) {
      throw new ApiProblem(
          ProblemKind.FORBIDDEN,
          "this credential is suspended (one of its nodes, or its organisation, is)");
    }
  }

  /** 403 unless {@code node} is usable: it, its credential and its organisation not suspended. */
  public void requireUsable(Node node) {
    if (em.createNativeQuery("SELECT 1 FROM usable_node WHERE id = :id")
        .setParameter("id", node.id)
        .getResultList()
        .isEmpty()) {
      throw new ApiProblem(
          ProblemKind.FORBIDDEN,
          "node "
              + node.name
              + " is suspended, or its credential or the organisation operating it is");
    }
  }
}
