package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.limits.KeyLevelQuery;
import io.tensafe.marketplace.limits.KeyRateLevel;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.Reservation;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * Admits a routed request in one autocommit statement (ADR 0042): confirms the key and the version
 * it was routed to, takes the key's rate and slot, records it ({@code gateway_request}, assigned to
 * the node it goes to first) and reserves its DP budget. Either both happen or neither: a request
 * the budget cannot cover leaves no record and no reservation. Both are one database call, {@code
 * admit} ({@code R__request_admission.sql}), which also chooses the nodes and takes their slots
 * when slots are counted in the database (ADR 0026); it commits on its own, in the round trip that
 * makes it, before any node is sent the request (see {@code ./tensafe bench gateway}).
 */
@ApplicationScoped
public class RequestAdmission {
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;
  @Inject NodeDispatcher nodes;
  @Inject io.tensafe.marketplace.sql.OneStatement statement;
  @Inject LiveRequests live;
  @Inject KeySlots slots;
  @Inject io.tensafe.marketplace.limits.LimitsConfig limitsConfig;

  /**
   * What the admission's call decided, committed: a {@code reservation}, or a {@code refusal} (the
   * key's rate stays spent), or that the version is no longer served as it was routed ({@code
   * versionChanged}: nothing was taken, written or reserved); and the catalogue's revision now
   * ({@code revision}).
   *
   * @param refusal null when admitted; 401 for a key no longer usable, 429 for its rate or slots or
   *     the budget, 422 for a budget that can never cover it; no node slot is left to the caller
   *     (which waits for one), with {@code reservation} and {@code refusal} both null
   * @param keyLevel the key's bucket right after the call drew from it, read in the call's round
   *     trip; null when the call did not draw from it (limits counted in memory, or refused before
   *     its rate)
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
   * Admits a request in one database call ({@code admit}), which commits on its own when the caller
   * has no transaction (the gateway's case): it checks the key is still usable and the context's
   * version is still served as it was routed (its price row in force at the request's start, and
   * still its adapter's newest when it was resolved as such) and, when {@code catalogue} is given,
   * that the catalogue is still at that revision; takes the key's rate and slot when {@code
   * keySlot} is given (limits counted in the database); with {@code choice} (slots counted in the
   * database) chooses the nodes and takes their slots, which are added to {@code claimed} best
   * first; without it {@code claimed} holds the slots already taken. The request is recorded on the
   * first of {@code claimed} and its budget reserved. On a refusal the call has undone every slot,
   * record and event but the key's spent rate. When the call takes the key's rate, a second
   * statement in the same round trip (the same implicit transaction) reads the key's bucket after
   * it ({@link KeyLevelQuery}), while the call's row lock on it is held, so the answer carries
   * exactly what this request left.
   *
   * <p>Once admitted, the request's record, leases and reservation are committed: a caller that
   * then cannot send it anywhere ends it ({@link Settlement#endUnserved}) and gives back {@code
   * claimed}.
   *
   * @throws NoUsableNode admitted, but every node the call chose has an endpoint this replica
   *     cannot use (their slots given back); the caller ends the request as above
   * @throws AdmittedNotSent admitted, and then something failed before the answer was complete; the
   *     caller ends the request as above
   */
  public Answer admit(
      String requestId,
      GatewayRequests.Context context,
      ServedVersion version,
      Long catalogue,
      KeySlots.InTheAdmission keySlot,
      NodeDispatcher.NodeChoice choice,
      List<NodeTarget> claimed,
      long releases,
      RequestMode mode) {
    UUID recorded = choice == null ? claimed.getFirst().id() : null;
    Called called =
        call(requestId, context, version, catalogue, keySlot, recorded, choice, releases, mode);
    long revision = called.revision();
    // The key's bucket as the call left it (read in its round trip when the call takes the rate).
    KeyRateLevel keyLevel = called.keyLevel();
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
        slots.rateLimited(context.apiKeyId(), called.retryAfter(), keyLevel);
        return refused(slots.refusal(true, called.retryAfter()), revision, keyLevel);
      }
      case "key_busy" -> {
        slots.full(context.apiKeyId());
        return refused(slots.refusal(false, 1), revision, keyLevel);
      }
      case "organisation_rate_limited" -> {
        return refused(
            new ApiProblem(
                ProblemKind.RATE_LIMITED,
                "this API key's organisation may start "
                    + limitsConfig.organisationRequestsPerMinute()
                    + " requests per minute, all its keys together",
                Math.max(1, called.retryAfter())),
            revision,
            keyLevel);
      }
      case "organisation_busy" -> {
        return refused(
            new ApiProblem(
                ProblemKind.RATE_LIMITED,
                "this API key's organisation already has "
                    + limitsConfig.organisationMaxInFlight()
                    + " requests in flight, all its keys together",
                1),
            revision,
            keyLevel);
      }
      case "no_capacity" -> {
        return new Answer(null, null, false, revision, keyLevel);
      }
      case "no_node" -> {
        return refused(CapacityRefusals.noNodeServing(version), revision, keyLevel);
      }
      case "refused" -> {
        try {
          budgets.reservation(called.priced(), called.answer());
        } catch (ApiProblem refusal) {
          return refused(refusal, revision, keyLevel);
        }
        throw new IllegalStateException("a budget's refusal was not refused");
      }
      default -> {
        // reserved or replayed: admitted
      }
    }
    // Admitted: the request's record, its leases and its reservation are committed when the caller
    // has no transaction. Whatever fails from here tells the caller which leases the call took.
    try {
      UUID onNode = recorded;
      if (choice != null) {
        NodeDispatcher.Chosen chosen = nodes.chosen(called.nodes());
        claimed.addAll(chosen.targets());
        onNode = chosen.recorded();
        if (claimed.isEmpty()) {
          // Every node it took has an endpoint this replica cannot use (their slots given back).
          throw new NoUsableNode(keyLevel);
        }
      }
      Reservation reservation = budgets.reservation(called.priced(), called.answer());
      if (!claimed.getFirst().id().equals(onNode)) {
        // The node the call recorded the request on has an endpoint that cannot be used.
        requests.assign(requestId, claimed.getFirst().id());
      }
      return new Answer(reservation, null, false, revision, keyLevel);
    } catch (NoUsableNode e) {
      throw e;
    } catch (RuntimeException e) {
      throw new AdmittedNotSent(e, choice == null ? List.of() : nodes.slotsIn(called.nodes()));
    }
  }

  private static Answer refused(ApiProblem refusal, long revision) {
    return refused(refusal, revision, null);
  }

  private static Answer refused(ApiProblem refusal, long revision, KeyRateLevel keyLevel) {
    return new Answer(null, refusal, false, revision, keyLevel);
  }

  /**
   * Thrown when every node the call chose has an endpoint this replica cannot use (their slots
   * given back): the caller ends the admitted request unserved and refuses it. {@code keyLevel}: as
   * {@link Answer#keyLevel}.
   */
  public static final class NoUsableNode extends RuntimeException {
    final transient KeyRateLevel keyLevel;

    NoUsableNode(KeyRateLevel keyLevel) {
      super("no node with a usable endpoint", null, false, false);
      this.keyLevel = keyLevel;
    }
  }

  /**
   * Thrown when something failed after the call admitted the request (its record, leases and
   * reservation committed when the caller had no transaction) and before it could be sent: the
   * caller ends it unserved and gives back {@code nodeSlots}, every node slot the call took (those
   * already given back included: giving back twice does nothing), beside what it claimed.
   */
  public static final class AdmittedNotSent extends RuntimeException {
    final transient List<UUID> nodeSlots;

    AdmittedNotSent(RuntimeException cause, List<UUID> nodeSlots) {
      super("admitted, then not sent: " + cause.getMessage(), cause, false, false);
      this.nodeSlots = List.copyOf(nodeSlots);
    }

    /** What failed. */
    public RuntimeException failure() {
      return (RuntimeException) getCause();
    }
  }

  /** The call's answer: the budget's, and the nodes it chose (JSON). */
  private record Called(
      PrivacyBudgets.Priced priced,
      PrivacyBudgets.Answer answer,
      String nodes,
      int retryAfter,
      long revision,
      KeyRateLevel keyLevel) {}

  /** The call's row, and the key's bucket read after it (null when not read). */
  private record Read(Row row, KeyRateLevel keyLevel) {}

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

  /** The admission's call, its 32 parameters in the order {@code call} binds them. */
  private static final String ADMIT =
      """
      SELECT * FROM admit(true, CAST(? AS uuid), CAST(? AS boolean), CAST(? AS bigint),
          CAST(? AS bigint), CAST(? AS uuid), CAST(? AS double precision), CAST(? AS integer),
          CAST(? AS text), CAST(? AS uuid), CAST(? AS uuid), CAST(? AS text), CAST(? AS text),
          CAST(? AS text), CAST(? AS timestamptz), CAST(? AS uuid), CAST(? AS bigint),
          CAST(? AS integer), CAST(? AS integer), CAST(? AS text), CAST(? AS uuid),
          CAST(? AS timestamptz), CAST(? AS timestamptz), CAST(? AS numeric), CAST(? AS numeric),
          CAST(? AS bigint), CAST(? AS numeric), CAST(? AS uuid), CAST(? AS text),
          CAST(? AS timestamptz), CAST(? AS uuid), CAST(? AS double precision), CAST(? AS text))\
      """;

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
        budgets.price(c.adapterRef(), c.version(), requestId, releases, Instant.now());
    KeyLevelQuery levelRead =
        keySlot == null || !keySlot.drawRate()
            ? null
            : new KeyLevelQuery(keySlot.perMinute(), c.apiKeyId());
    Object[] args = {
      version.versionId(),
      version.newest(),
      version.priceId(),
      catalogue,
      keySlot == null ? null : keySlot.lease(),
      keySlot == null || !keySlot.drawRate() ? null : (double) keySlot.perMinute(),
      keySlot == null ? null : keySlot.maxInFlight(),
      requestId,
      c.clientOrganisationId(),
      c.apiKeyId(),
      c.adapterRef(),
      c.version(),
      c.routeReason(),
      c.startedAt(),
      node,
      c.limits().maxPromptTokens(),
      c.limits().maxCompletionTokens(),
      c.limits().promptTokens(),
      mode.column(),
      p.adapterId(),
      p.periodStart(),
      p.periodEnd(),
      p.delta(),
      p.rhoLimit(),
      p.releases(),
      p.cost(),
      choice == null ? null : choice.fleetId(),
      choice == null ? null : choice.baseModel(),
      choice == null ? null : choice.freshSince(),
      choice == null ? null : choice.holder(),
      choice == null ? null : choice.ttlSeconds(),
      live.replica()
    };
    // Through JDBC itself: with limits in the database, the key's bucket is read by a second
    // statement in the same round trip, after admit drew from it and while it holds its row.
    Read read =
        statement.withConnection(
            connection -> {
              try (PreparedStatement s =
                  connection.prepareStatement(
                      levelRead == null ? ADMIT : ADMIT + "; " + KeyLevelQuery.SQL)) {
                for (int i = 0; i < args.length; i++) {
                  if (args[i] == null) {
                    s.setNull(i + 1, java.sql.Types.NULL); // typed by its CAST
                  } else {
                    s.setObject(i + 1, args[i]);
                  }
                }
                if (levelRead != null) {
                  levelRead.bind(s, args.length + 1);
                }
                s.execute();
                Row row;
                try (ResultSet rows = s.getResultSet()) {
                  if (!rows.next()) {
                    throw new IllegalStateException("admit returned no row");
                  }
                  row = Rows.current(rows, Row.class);
                }
                if (levelRead == null) {
                  return new Read(row, null);
                }
                if (!s.getMoreResults()) {
                  throw new IllegalStateException("the key's bucket was not read");
                }
                try (ResultSet rows = s.getResultSet()) {
                  return new Read(row, levelRead.level(rows));
                }
              }
            });
    Row r = read.row();
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
    return new Called(p, answer, r.nodes(), r.retryAfter(), r.revision(), read.keyLevel());
  }
}
