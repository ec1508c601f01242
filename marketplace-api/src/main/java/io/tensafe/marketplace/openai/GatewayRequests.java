package io.tensafe.marketplace.openai;

import io.tensafe.marketplace.sql.SqlValues;
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

  /**
   * What a usage report needs to be charged.
   *
   * @param ended whether the gateway ended the request itself (and so billed it); false when the
   *     request is still streaming or the marketplace restarted before it ended
   */
  public record Context(
      UUID clientOrganisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      String routeReason,
      OffsetDateTime startedAt,
      boolean ended) {}

  /** Records a request about to be dispatched to {@code node}. */
  @Transactional
  public void open(String requestId, Context c, UUID node) {
    em.createNativeQuery(
            """
            INSERT INTO gateway_request (request_id, client_organisation_id, api_key_id,
                adapter_ref, adapter_version, route_reason, started_at, node_id)
            VALUES (:r, :org, :key, :ref, :version, :reason, :started, :node)
            """)
        .setParameter("r", UUID.fromString(requestId))
        .setParameter("org", c.clientOrganisationId())
        .setParameter("key", c.apiKeyId())
        .setParameter("ref", c.adapterRef())
        .setParameter("version", c.version())
        .setParameter("reason", c.routeReason())
        .setParameter("started", c.startedAt())
        .setParameter("node", node)
        .executeUpdate();
  }

  /** Re-assigns a request that failed over to {@code node}. */
  @Transactional
  public void assign(String requestId, UUID node) {
    em.createNativeQuery("UPDATE gateway_request SET node_id = :n WHERE request_id = :r")
        .setParameter("n", node)
        .setParameter("r", UUID.fromString(requestId))
        .executeUpdate();
  }

  /**
   * Records how the gateway ended {@code requestId} and the token counts it delivered; the first
   * end stands.
   *
   * @return false if the request had already ended
   */
  @Transactional
  public boolean end(
      String requestId, RequestOutcome outcome, int promptTokens, int completionTokens) {
    return em.createNativeQuery(
                "UPDATE gateway_request SET ended_at = now(), outcome = :o,"
                    + " delivered_prompt_tokens = :p, delivered_completion_tokens = :c"
                    + " WHERE request_id = :r AND ended_at IS NULL")
            .setParameter("o", outcome.column())
            .setParameter("p", promptTokens)
            .setParameter("c", completionTokens)
            .setParameter("r", UUID.fromString(requestId))
            .executeUpdate()
        == 1;
  }

  /** The context of {@code requestId}, if the gateway dispatched it. */
  public Optional<Context> find(String requestId) {
    return em.createNativeQuery(
            "SELECT client_organisation_id, api_key_id, adapter_ref, adapter_version,"
                + " route_reason, started_at, ended_at IS NOT NULL FROM gateway_request"
                + " WHERE request_id = :r")
        .setParameter("r", UUID.fromString(requestId))
        .getResultStream()
        .findFirst()
        .map(
            row -> {
              Object[] r = (Object[]) row;
              return new Context(
                  (UUID) r[0],
                  (UUID) r[1],
                  (String) r[2],
                  (String) r[3],
                  (String) r[4],
                  SqlValues.toOffset(r[5]),
                  (Boolean) r[6]);
            });
  }
}
