package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.limits.KeyRateLevel;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseKind;
import io.tensafe.marketplace.privacy.Reservation;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Admits a routed request in one transaction: confirms the key and the version it was routed to,
 * takes the key's rate and slot, records it ({@code gateway_request}, assigned to the node it goes
 * to first) and reserves its DP budget. Either both happen or neither: a request the budget cannot
 * cover leaves no record and no reservation. Both are one database call, {@code admit} (migration
 * V29), which also chooses the nodes and takes their slots when slots are counted in the database
 * (ADR 0026); one call and one commit before dispatch keep the latency the gateway adds low (see
 * {@code ./tensafe bench gateway}).
 */
@ApplicationScoped
public class RequestAdmission {
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;
  @Inject NodeDispatcher nodes;
  @Inject EntityManager em;
  @Inject LiveRelays live;
  @Inject KeySlots slots;

  /**
   * What the admission's call decided: a {@code reservation}, or a {@code refusal} to answer once
   * the transaction has committed (the key's rate stays spent), or that the version is no longer
   * served as it was routed ({@code versionChanged}: nothing was taken, written or reserved); and
   * the catalogue's revision now ({@code revision}).
   *
   * @param refusal null when admitted; 401 for a key no longer usable, 429 for its rate or slots or
   *     the budget, 422 for a budget that can never cover it; a 503 for no node slot is left to the
   *     caller ({@code noCapacity}, with {@code reservation} and {@code refusal} both null)
   * @param keyLevel the key's bucket right after the call drew from it, read in the same
   *     transaction; null when the call did not draw from it (limits counted in memory, or refused
   *     before its rate) or it was not asked for
   */
  public record Answer(
      Reservation reservation,
      ApiProblem refusal,
      boolean versionChanged,
      long revision,
      KeyRateLevel keyLevel) {
    /** No node had a free slot ({@code revision} 0: not asked). */
    static final Answer NO_CAPACITY = new Answer(null, null, false, 0, null);
  }

  /**
   * Admits a request in one database call ({@code admit}, migration V29): it checks the key is
   * still usable and the context's version is still served as it was routed (its price row in force
   * at the request's start, and still its adapter's newest when it was resolved as such) and, when
   * {@code catalogue} is given, that the catalogue is still at that revision; takes the key's rate
   * and slot when {@code keySlot} is given (limits counted in the database), and then as {@code
   * admit_request} (V28): with {@code choice} (slots counted in the database) chooses the nodes and
   * takes their slots, which are added to {@code claimed} best first; without it {@code claimed}
   * holds the slots already taken. The request is recorded on the first of {@code claimed} and its
   * budget reserved; then {@code beforeCommit} is given that first node, which it may send the
   * request so that the node starts while the transaction commits: by then the request's record and
   * lock are in place (a report from the node waits for this transaction's end) and its reservation
   * is made (a request the budget refuses never reaches a node). Nothing reaches the client before
   * the caller has the commit; if the commit fails, the caller abandons what it sent. On a refusal
   * the call has undone every slot, record and event but the key's spent rate, and the caller
   * commits before it answers. With {@code readKeyLevel}, once the call drew from the key's rate
   * the key's bucket is read in the same transaction, whose row lock on it is still held, so the
   * answer carries exactly what this request left (after the node was sent the request, so the read
   * delays the commit, not the dispatch).
   */
  @Transactional
  public Answer admit(
      String requestId,
      GatewayRequests.Context context,
      ServedVersion version,
      Long catalogue,
      KeySlots.InTheAdmission keySlot,
      NodeDispatcher.NodeChoice choice,
      List<NodeTarget> claimed,
      long releases,
      RequestMode mode,
      boolean readKeyLevel,
      Consumer<NodeTarget> beforeCommit) {
    UUID recorded = choice == null ? claimed.getFirst().id() : null;
    Called called =
        call(requestId, context, version, catalogue, keySlot, recorded, choice, releases, mode);
    long revision = called.revision();
    // The key's bucket, once the call drew from it; not read unless asked (private sessions).
    java.util.function.Supplier<KeyRateLevel> keyLevel =
        () ->
            readKeyLevel && keySlot != null ? slots.levelInTheAdmission(context.apiKeyId()) : null;
    switch (called.answer().outcome()) {
      case "key_unusable" -> {
        return refused(
            new ApiProblem(
                ProblemKind.UNAUTHORIZED,
                "a valid, unrevoked API key is required as 'Authorization: Bearer tsk_...'"),
            revision);
      }
      case "version_changed", "catalogue_changed" -> {
        return new Answer(null, null, true, revision, null);
      }
      case "rate_limited" -> {
        // Read whether asked or not: this replica refuses the key until it refills from here.
        KeyRateLevel level = slots.levelInTheAdmission(context.apiKeyId());
        slots.rateLimited(context.apiKeyId(), called.retryAfter(), level);
        return refused(slots.refusal(true, called.retryAfter()), revision, level);
      }
      case "key_busy" -> {
        slots.full(context.apiKeyId());
        return refused(slots.refusal(false, 1), revision, keyLevel.get());
      }
      case "no_capacity" -> {
        return new Answer(null, null, false, revision, keyLevel.get());
      }
      case "refused" -> {
        try {
          budgets.reservation(called.priced(), called.answer());
        } catch (ApiProblem refusal) {
          return refused(refusal, revision, keyLevel.get());
        }
        throw new IllegalStateException("a budget's refusal was not refused");
      }
      default -> {
        // reserved or replayed: admitted
      }
    }
    UUID onNode = recorded;
    if (choice != null) {
      NodeDispatcher.Chosen chosen = nodes.chosen(called.nodes());
      claimed.addAll(chosen.targets());
      onNode = chosen.recorded();
      if (claimed.isEmpty()) {
        // Every node it took has an endpoint this replica cannot use: undo as for no capacity.
        throw new NoUsableNode();
      }
    }
    Reservation reservation = budgets.reservation(called.priced(), called.answer());
    if (!claimed.getFirst().id().equals(onNode)) {
      // The node the call recorded the request on has an endpoint that cannot be used.
      requests.assign(requestId, claimed.getFirst().id());
    }
    beforeCommit.accept(claimed.getFirst());
    return new Answer(reservation, null, false, revision, keyLevel.get());
  }

  private static Answer refused(ApiProblem refusal, long revision) {
    return refused(refusal, revision, null);
  }

  private static Answer refused(ApiProblem refusal, long revision, KeyRateLevel keyLevel) {
    return new Answer(null, refusal, false, revision, keyLevel);
  }

  /**
   * Thrown when every node the call chose has an endpoint this replica cannot use, to roll the
   * admission back: the caller answers as for no capacity.
   */
  public static final class NoUsableNode extends RuntimeException {
    NoUsableNode() {
      super("no node with a usable endpoint", null, false, false);
    }
  }

  /** The call's answer: the budget's, and the nodes it chose (JSON). */
  private record Called(
      PrivacyBudgets.Priced priced,
      PrivacyBudgets.Answer answer,
      String nodes,
      int retryAfter,
      long revision) {}

  /** The columns {@code admit} returns: the budget's answer, its nodes, the key's wait. */
  private record Row(
      String outcome,
      long releases,
      UUID budgetId,
      BigDecimal rhoLimit,
      BigDecimal rhoTopUp,
      BigDecimal rhoSpent,
      BigDecimal delta,
      OffsetDateTime periodEnd,
      BigDecimal inFlight,
      String nodes,
      int retryAfter,
      long revision) {}

  private Called call(
      String requestId,
      GatewayRequests.Context c,
      ServedVersion version,
      Long catalogue,
      KeySlots.InTheAdmission keySlot,
      UUID node,
      NodeDispatcher.NodeChoice choice,
      long releases,
      RequestMode mode) {
    PrivacyBudgets.Priced p =
        budgets.price(
            c.adapterRef(),
            c.version(),
            requestId,
            releases,
            mode == RequestMode.PRIVATE ? ReleaseKind.NOISED_SITE : ReleaseKind.NOISED_INPUT,
            Instant.now());
    Row r =
        Rows.single(
            em.createNativeQuery(
                    """
                    SELECT * FROM admit(true, CAST(:versionId AS uuid),
                        CAST(:newest AS boolean), CAST(:price AS bigint),
                        CAST(:catalogue AS bigint), CAST(:keyLease AS uuid), CAST(:perMinute AS double precision),
                        CAST(:keyMax AS integer), CAST(:r AS text), CAST(:org AS uuid),
                        CAST(:key AS uuid), CAST(:ref AS text), CAST(:version AS text),
                        CAST(:reason AS text), CAST(:started AS timestamptz), CAST(:node AS uuid),
                        CAST(:maxPrompt AS bigint), CAST(:maxCompletion AS integer),
                        CAST(:prompt AS integer), CAST(:mode AS text), CAST(:adapter AS uuid),
                        CAST(:start AS timestamptz), CAST(:end AS timestamptz),
                        CAST(:delta AS numeric), CAST(:limit AS numeric), CAST(:n AS bigint),
                        CAST(:cost AS numeric), CAST(:fleet AS uuid), CAST(:model AS text),
                        CAST(:fresh AS timestamptz), CAST(:holder AS uuid),
                        CAST(:ttl AS double precision), CAST(:replica AS text))
                    """)
                .setParameter("versionId", version.versionId())
                .setParameter("newest", version.newest())
                .setParameter("price", version.priceId())
                .setParameter("catalogue", catalogue)
                .setParameter("keyLease", keySlot == null ? null : keySlot.lease())
                .setParameter("perMinute", keySlot == null ? null : (double) keySlot.perMinute())
                .setParameter("keyMax", keySlot == null ? null : keySlot.maxInFlight())
                .setParameter("r", requestId)
                .setParameter("org", c.clientOrganisationId())
                .setParameter("key", c.apiKeyId())
                .setParameter("ref", c.adapterRef())
                .setParameter("version", c.version())
                .setParameter("reason", c.routeReason())
                .setParameter("started", c.startedAt())
                .setParameter("node", node)
                .setParameter("maxPrompt", c.limits().maxPromptTokens())
                .setParameter("maxCompletion", c.limits().maxCompletionTokens())
                .setParameter("prompt", c.limits().promptTokens())
                .setParameter("mode", mode.column())
                .setParameter("adapter", p.adapterId())
                .setParameter("start", p.periodStart())
                .setParameter("end", p.periodEnd())
                .setParameter("delta", p.delta())
                .setParameter("limit", p.rhoLimit())
                .setParameter("n", p.releases())
                .setParameter("cost", p.cost())
                .setParameter("fleet", choice == null ? null : choice.fleetId())
                .setParameter("model", choice == null ? null : choice.baseModel())
                .setParameter("fresh", choice == null ? null : choice.freshSince())
                .setParameter("holder", choice == null ? null : choice.holder())
                .setParameter("ttl", choice == null ? null : choice.ttlSeconds())
                .setParameter("replica", live.replica()),
            Row.class);
    PrivacyBudgets.Answer answer =
        new PrivacyBudgets.Answer(
            r.outcome(),
            r.releases(),
            r.budgetId(),
            r.rhoLimit(),
            r.rhoTopUp(),
            r.rhoSpent(),
            r.delta(),
            r.periodEnd(),
            r.inFlight());
    return new Called(p, answer, r.nodes(), r.retryAfter(), r.revision());
  }
}
