package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
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
  @Inject io.tensafe.marketplace.sql.OneStatement statement;
  @Inject LiveRequests live;

  /**
   * What a usage report needs to be charged.
   *
   * @param ended whether the gateway ended the request itself (and so billed it); false when the
   *     request is still streaming or the marketplace restarted before it ended
   * @param limits the most the request may bill; {@link Limits#NONE} for requests recorded before
   *     the gateway kept them
   */
  public record Context(
      UUID clientOrganisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      String routeReason,
      OffsetDateTime startedAt,
      boolean ended,
      Limits limits) {
    /**
     * The context of a private session named with its version: no route reason (a private session
     * never names {@code auto}), no token limits recorded here (its plan bounds it, and it is
     * billed from the frames relayed), not ended by a gateway yet.
     */
    public static Context privateSession(
        UUID clientOrganisationId,
        UUID apiKeyId,
        String adapterRef,
        String version,
        OffsetDateTime startedAt) {
      return new Context(
          clientOrganisationId, apiKeyId, adapterRef, version, null, startedAt, false, Limits.NONE);
    }
  }

  /**
   * The most a request may bill, fixed by the gateway before dispatch from what the client sent.
   *
   * @param maxPromptTokens the prompt-token bound the node was told ({@code max_prompt_tokens}), ≥
   *     1
   * @param maxCompletionTokens the most completion tokens the request can bill: the client's {@code
   *     max_tokens} times its {@code n} choices, 1..8 × 4096
   * @param promptTokens the prompt's tokens as the marketplace counted them with the nodes'
   *     tokenizer, ≥ 0; -1 when not counted (rows from before it was)
   */
  public record Limits(long maxPromptTokens, int maxCompletionTokens, int promptTokens) {
    /** No bound recorded (rows from before the gateway kept them). */
    public static final Limits NONE = new Limits(Long.MAX_VALUE, Integer.MAX_VALUE, -1);
  }

  /**
   * Where a dispatched request was sent, and how far the gateway got with it.
   *
   * @param relayedCompletionTokens the completion tokens the gateway recorded as relayed while it
   *     streamed, and as read from the node at its end, ≥ 0
   * @param relayedAny whether the gateway recorded any relayed count (it does at the first piece it
   *     passes on): its node answered
   * @param gatewayLost whether the request is open although its gateway has not vouched for it
   *     within the report deadline: its gateway died
   */
  public record Dispatched(
      Context context,
      UUID nodeId,
      RequestMode mode,
      int relayedCompletionTokens,
      boolean relayedAny,
      boolean gatewayLost) {}

  /**
   * Records a request of {@code mode} about to be dispatched to {@code node}, holding the request's
   * lock ({@link io.tensafe.marketplace.privacy.PrivacyBudgets#REQUEST_LOCK}) until the transaction
   * ends: a node's report of the request waits for it, so it never finds the request missing only
   * because the admission has not committed yet.
   */
  @Transactional
  public void open(String requestId, Context c, UUID node, RequestMode mode) {
    em.createNativeQuery(
            """
            INSERT INTO gateway_request (request_id, client_organisation_id, api_key_id,
                adapter_ref, adapter_version, route_reason, started_at, node_id,
                max_prompt_tokens, max_completion_tokens, prompt_tokens, mode, active_at, replica)
            SELECT :r, :org, :key, :ref, :version, :reason, :started, :node, :maxPrompt,
                :maxCompletion, NULLIF(:prompt, -1), :mode,
                CASE WHEN :mode = 'private' THEN CAST(:started AS timestamptz) END, :replica
            FROM\s"""
                + io.tensafe.marketplace.privacy.PrivacyBudgets.REQUEST_LOCK)
        .setParameter("lockedRequest", requestId)
        .setParameter("mode", mode.column())
        .setParameter("replica", live.replica())
        .setParameter("prompt", c.limits().promptTokens())
        .setParameter("maxPrompt", c.limits().maxPromptTokens())
        .setParameter("maxCompletion", c.limits().maxCompletionTokens())
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
   * Records how the gateway ended {@code requestId} and the token counts it billed; the first end
   * stands.
   *
   * @return false if the request had already ended
   */
  @Transactional
  public boolean end(
      String requestId, RequestOutcome outcome, int promptTokens, int completionTokens) {
    return end(requestId, outcome, Settlement.Counts.billed(promptTokens, completionTokens));
  }

  /**
   * As {@link #end(String, RequestOutcome, int, int)}, with the completion tokens read from the
   * node ({@code relayed_completion_tokens}, which DP bounds count) and the node's own count beside
   * the marketplace's ({@code node_completion_tokens}, the cross-check).
   */
  @Transactional
  public boolean end(String requestId, RequestOutcome outcome, Settlement.Counts counts) {
    return em.createNativeQuery(
                "UPDATE gateway_request SET ended_at = now(), outcome = :o,"
                    + " delivered_prompt_tokens = :p, delivered_completion_tokens = :c,"
                    + " relayed_completion_tokens = :read,"
                    + " node_completion_tokens = NULLIF(:n, -1)"
                    + " WHERE request_id = :r AND ended_at IS NULL")
            .setParameter("o", outcome.column())
            .setParameter("p", counts.promptTokens())
            .setParameter("c", counts.completionTokens())
            .setParameter("read", counts.readCompletionTokens())
            .setParameter("n", counts.nodeCompletionClaim())
            .setParameter("r", UUID.fromString(requestId))
            .executeUpdate()
        == 1;
  }

  /**
   * Records what the node said when request {@code requestId} failed (its words, for admins and the
   * log; never sent to the client), cut to 500 characters.
   */
  @Transactional
  public void nodeError(String requestId, String words) {
    em.createNativeQuery("UPDATE gateway_request SET node_error = :w WHERE request_id = :r")
        .setParameter("w", words.length() > 500 ? words.substring(0, 500) : words)
        .setParameter("r", UUID.fromString(requestId))
        .executeUpdate();
  }

  /**
   * Records, while a hosted request streams, the completion tokens relayed to its client so far
   * (the marketplace's count) and that its gateway is alive ({@code active_at}): if the gateway
   * dies, its node's report is billed at most this. One statement: outside a transaction, one round
   * trip.
   */
  public void relayed(String requestId, int completionTokens) {
    statement.update(
        "UPDATE gateway_request SET relayed_completion_tokens = CAST(? AS integer),"
            + " active_at = now() WHERE request_id = CAST(? AS uuid) AND ended_at IS NULL",
        completionTokens,
        UUID.fromString(requestId));
  }

  /**
   * Records a private session's accepted frame: the tokens it was served so far (the marketplace's
   * count from the frames), so that a session whose marketplace died is billed for them, and that
   * it is live now ({@code active_at}, which the orphan sweep reads).
   *
   * @return false if the session has ended (another replica's sweep ended it): nothing is written
   */
  @Transactional
  public boolean served(String requestId, int promptTokens, long completionTokens) {
    return em.createNativeQuery(
                "UPDATE gateway_request SET served_prompt_tokens = :p,"
                    + " served_completion_tokens = :c, active_at = now()"
                    + " WHERE request_id = :r AND mode = 'private' AND ended_at IS NULL")
            .setParameter("p", promptTokens)
            .setParameter("c", (int) completionTokens)
            .setParameter("r", UUID.fromString(requestId))
            .executeUpdate()
        == 1;
  }

  /**
   * Marks the requests {@code live}, of either mode, as live now ({@code active_at}), for the
   * replica that serves them, so that no replica's sweep takes them for lost.
   *
   * @return those of {@code live} that have not ended (the others were ended elsewhere)
   */
  @Transactional
  public java.util.Set<UUID> vouch(java.util.Collection<UUID> live) {
    if (live.isEmpty()) {
      return java.util.Set.of();
    }
    List<?> rows =
        em.createNativeQuery(
                "UPDATE gateway_request SET active_at = now() WHERE request_id = ANY (:ids)"
                    + " AND ended_at IS NULL RETURNING request_id")
            .setParameter("ids", live.toArray(UUID[]::new))
            .getResultList();
    java.util.Set<UUID> open = new java.util.HashSet<>();
    for (Object row : rows) {
      open.add((UUID) row);
    }
    return open;
  }

  /**
   * The context of {@code requestId} and the node it went to, if the gateway dispatched it; an open
   * request not vouched for since {@code lostBefore} is marked lost ({@link
   * Dispatched#gatewayLost}).
   */
  public Optional<Dispatched> find(String requestId, OffsetDateTime lostBefore) {
    return Rows.first(
            em.createNativeQuery(
                    "SELECT client_organisation_id, api_key_id, adapter_ref, adapter_version,"
                        + " route_reason, started_at, ended_at IS NOT NULL, max_prompt_tokens,"
                        + " max_completion_tokens, prompt_tokens, node_id, mode,"
                        + " relayed_completion_tokens,"
                        + " ended_at IS NULL AND coalesce(active_at, started_at) < :lost"
                        + " FROM gateway_request WHERE request_id = :r")
                .setParameter("r", UUID.fromString(requestId))
                .setParameter("lost", lostBefore),
            Stored.class)
        .map(Stored::dispatched);
  }

  /**
   * A {@code gateway_request} row. The limits are null on rows from before the gateway kept them
   * ({@code promptTokens} also when it did not count the prompt); the relayed count is null until
   * the gateway first wrote it.
   */
  private record Stored(
      UUID clientOrganisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      String routeReason,
      OffsetDateTime startedAt,
      boolean ended,
      Long maxPromptTokens,
      Integer maxCompletionTokens,
      Integer promptTokens,
      UUID nodeId,
      String mode,
      Integer relayedCompletionTokens,
      boolean gatewayLost) {

    Dispatched dispatched() {
      Limits limits =
          maxPromptTokens == null
              ? Limits.NONE
              : new Limits(
                  maxPromptTokens, maxCompletionTokens, promptTokens == null ? -1 : promptTokens);
      return new Dispatched(
          new Context(
              clientOrganisationId,
              apiKeyId,
              adapterRef,
              version,
              routeReason,
              startedAt,
              ended,
              limits),
          nodeId,
          RequestMode.of(mode),
          relayedCompletionTokens == null ? 0 : relayedCompletionTokens,
          relayedCompletionTokens != null,
          gatewayLost);
    }
  }
}
