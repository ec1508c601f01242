package io.tensafe.marketplace.openai;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/**
 * The record of each dispatched request (table {@code gateway_request}): who pays, for which
 * version, why it was routed there, and which node ran it. A node's usage report is charged from
 * it.
 */
@ApplicationScoped
public class GatewayRequests {
  @Inject EntityManager em;

  /** What a usage report needs to be charged. */
  public record Context(
      UUID clientOrganisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      String routeReason,
      OffsetDateTime startedAt) {}

  @Transactional
  public void open(String requestId, Context c) {
    em.createNativeQuery(
            """
            INSERT INTO gateway_request (request_id, client_organisation_id, api_key_id,
                adapter_ref, adapter_version, route_reason, started_at)
            VALUES (:r, :org, :key, :ref, :version, :reason, :started)
            """)
        .setParameter("r", UUID.fromString(requestId))
        .setParameter("org", c.clientOrganisationId())
        .setParameter("key", c.apiKeyId())
        .setParameter("ref", c.adapterRef())
        .setParameter("version", c.version())
        .setParameter("reason", c.routeReason())
        .setParameter("started", c.startedAt())
        .executeUpdate();
  }

  @Transactional
  public void assign(String requestId, UUID node) {
    em.createNativeQuery("UPDATE gateway_request SET node_id = :n WHERE request_id = :r")
        .setParameter("n", node)
        .setParameter("r", UUID.fromString(requestId))
        .executeUpdate();
  }

  /** The context of {@code requestId}, if the gateway dispatched it. */
  public Optional<Context> find(String requestId) {
    return em.createNativeQuery(
            "SELECT client_organisation_id, api_key_id, adapter_ref, adapter_version,"
                + " route_reason, started_at FROM gateway_request WHERE request_id = :r")
        .setParameter("r", UUID.fromString(requestId))
        .getResultStream()
        .findFirst()
        .map(
            row -> {
              Object[] r = (Object[]) row;
              OffsetDateTime started =
                  r[5] instanceof OffsetDateTime t
                      ? t
                      : ((java.time.Instant) r[5]).atOffset(java.time.ZoneOffset.UTC);
              return new Context(
                  (UUID) r[0], (UUID) r[1], (String) r[2], (String) r[3], (String) r[4], started);
            });
  }
}
