package io.tensafe.marketplace.openai;

import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;

/**
 * What the gateway's tests read back from the ledgers of one request: how it ended, what it was
 * charged and what its DP budget events hold.
 */
record Ledgers(EntityManager em) {
  /** How request {@code requestId} ended ({@code gateway_request.outcome}). */
  String outcome(String requestId) {
    return String.valueOf(
        em.createNativeQuery("SELECT outcome FROM gateway_request WHERE request_id = ?1")
            .setParameter(1, UUID.fromString(requestId))
            .getSingleResult());
  }

  /** The prompt and completion tokens request {@code requestId} was charged. */
  List<Long> charged(String requestId) {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "SELECT prompt_tokens, completion_tokens FROM charge WHERE request_id = ?1")
                .setParameter(1, requestId)
                .getSingleResult();
    return List.of(((Number) row[0]).longValue(), ((Number) row[1]).longValue());
  }

  /** The releases of {@code requestId}'s budget events of {@code kind}, summed; -1 when none. */
  long releases(String requestId, String kind) {
    Object v =
        em.createNativeQuery(
                "SELECT sum(releases) FROM dp_budget_event WHERE request_id = ?1 AND kind = ?2")
            .setParameter(1, requestId)
            .setParameter(2, kind)
            .getSingleResult();
    return v == null ? -1 : ((Number) v).longValue();
  }

  /** A count {@code sql} returns for its one parameter {@code arg}; 0 for null. */
  long count(String sql, String arg) {
    Object value = em.createNativeQuery(sql).setParameter(1, arg).getSingleResult();
    return value == null ? 0 : ((Number) value).longValue();
  }
}
