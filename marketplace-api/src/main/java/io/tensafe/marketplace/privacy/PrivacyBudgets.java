package io.tensafe.marketplace.privacy;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import io.tensafe.marketplace.sql.SqlRefusal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.UUID;

/**
 * Differential-privacy budgets per client organisation, adapter and period, in SQL; the arithmetic
 * is {@link BudgetMaths}; the budget rows and policies are read and created by {@link BudgetTable}.
 *
 * <p>A node makes {@code releasesPerToken} releases (the adapter's noised sites, {@code
 * LoraInputs}) for every token its model processes, in both modes: each prompt token in prefill,
 * each generated token fed back (ADR 0035). A period's limit is the largest ρ whose ε stays within
 * the policy's ε ({@link BudgetMaths#rhoLimit}).
 *
 * <p>Flow: {@link #reserve} the most a request can release before dispatch (atomic under a row
 * lock: concurrent requests can never overspend, and the database refuses an overspent row too),
 * {@link #settle} to the releases the node made, {@link #refund} when no node took the request. All
 * three are idempotent by request id. An exhausted budget is a 429 problem naming the budget and
 * when it resets.
 */
@ApplicationScoped
public class PrivacyBudgets {
  /**
   * The SQL call that takes a request's transaction-scoped lock, its id bound as {@code
   * :lockedRequest}: taken by the gateway's admission when it records the request, by settlement
   * and refund, and by a usage report that does not find its request (so a report that overtakes
   * the admission's commit waits for it).
   */
  public static final String REQUEST_LOCK =
      "pg_advisory_xact_lock(hashtextextended(CAST(:lockedRequest AS text), 7))";

  @Inject EntityManager em;
  @Inject BudgetTable table;

  /**
   * Reserves {@code releases} releases of the budget of {@code clientOrganisationId} for {@code
   * adapterRef@version}; a reservation's settlement is a share of it.
   */
  @Transactional
  public Reservation reserve(
      UUID clientOrganisationId,
      String adapterRef,
      String version,
      String requestId,
      long releases,
      Instant now) {
    Quote q = quote(adapterRef, version, requestId, releases, now);
    BudgetPolicy policy = q.policy();
    OffsetDateTime start = q.start();
    BigDecimal cost = q.cost();
    Reserved written =
        reserveStatement(clientOrganisationId, policy, start, requestId, releases, cost);
    if (written.events() == 0) {
      // Either this request id reserved already (a replay answers the same), or this period's
      // budget row does not exist yet: create it and reserve again.
      Optional<Event> existing = event(requestId, "reserve");
      if (existing.isPresent()) {
        return reservation(
            requestId,
            existing.get().releases(),
            table.budgetRow(clientOrganisationId, policy.adapterId(), start));
      }
      table.ensureBudget(clientOrganisationId, policy, now);
      written = reserveStatement(clientOrganisationId, policy, start, requestId, releases, cost);
    }
    Optional<BudgetRow> after = written.budget();
    if (after.isEmpty()) {
      // Rolled back with the transaction: the event above is not kept.
      BudgetRow budget = table.budgetRow(clientOrganisationId, policy.adapterId(), start);
      throw exhausted(
          adapterRef,
          policy.delta(),
          policy.days(),
          budget,
          releases,
          cost,
          table.reservedInFlight(budget.id(), requestId));
    }
    return reservation(requestId, releases, after.get());
  }

  /**
   * A reservation priced for the admission's one database call ({@code admit_request}, migration
   * V28), which records the request and reserves in one round trip: the figures {@link #reserve}
   * computes before its statements, passed in as they are.
   *
   * @param periodStart the start of the budget's period containing the admission's time
   * @param rhoLimit a new budget row's ρ limit under the version's policy
   * @param cost the ρ of {@code releases}, rounded up ({@link BudgetMaths#cost})
   */
  public record Priced(
      String requestId,
      String adapterRef,
      UUID adapterId,
      OffsetDateTime periodStart,
      OffsetDateTime periodEnd,
      BigDecimal delta,
      int days,
      BigDecimal rhoLimit,
      long releases,
      BigDecimal cost) {}

  /**
   * What {@code admit_request} answers about the budget.
   *
   * @param outcome {@code reserved}, {@code replayed} or {@code refused}
   * @param inFlight for a refusal, the ρ of the budget's other open reservations
   */
  public record Answer(
      String outcome,
      long releases,
      UUID budgetId,
      BigDecimal rhoLimit,
      BigDecimal rhoTopUp,
      BigDecimal rhoSpent,
      BigDecimal delta,
      OffsetDateTime periodEnd,
      BigDecimal inFlight) {
    BudgetRow budget() {
      return new BudgetRow(budgetId, rhoLimit, rhoTopUp, rhoSpent, delta, periodEnd);
    }
  }

  /**
   * Prices a reservation of {@code releases} releases of the budget of {@code clientOrganisationId}
   * for {@code adapterRef@version} at {@code now}, as {@link #reserve(UUID, String, String, String,
   * long, Instant)} does before it writes, for {@code admit_request} to write it.
   *
   * @throws ApiProblem 400 for fewer than 1 release or a bad request id; 404 for an unknown version
   */
  public Priced price(
      String adapterRef, String version, String requestId, long releases, Instant now) {
    Quote q = quote(adapterRef, version, requestId, releases, now);
    BudgetPolicy policy = q.policy();
    return new Priced(
        requestId,
        adapterRef,
        policy.adapterId(),
        q.start(),
        q.start().plusDays(policy.days()),
        policy.delta(),
        policy.days(),
        table.rhoLimit(policy),
        releases,
        q.cost());
  }

  /** A reservation's policy, period start and ρ cost, before anything is written. */
  private record Quote(BudgetPolicy policy, OffsetDateTime start, BigDecimal cost) {}

  /**
   * Checks and prices a reservation of {@code releases} for {@code adapterRef@version} at {@code
   * now}: the figures {@link #reserve} and {@link #price} share.
   *
   * @throws ApiProblem 400 for fewer than 1 release or a bad request id; 404 for an unknown version
   */
  private Quote quote(
      String adapterRef, String version, String requestId, long releases, Instant now) {
    if (releases < 1) {
      throw ProblemTypes.validation("a reservation must cover at least 1 release");
    }
    requireRequestId(requestId);
    BudgetPolicy policy = table.policy(adapterRef, version);
    return new Quote(
        policy,
        BudgetMaths.periodStart(policy.days(), now),
        BudgetMaths.cost(policy.noiseMultiplier(), releases));
  }

  /**
   * The reservation {@code admit_request} made for {@code priced}.
   *
   * @throws ApiProblem 429 (or 422) as {@link #reserve} refuses, when the budget could not cover it
   *     (the caller's transaction then rolls back the record and the event)
   */
  public Reservation reservation(Priced priced, Answer answer) {
    if (answer.outcome().equals("refused")) {
      throw exhausted(
          priced.adapterRef(),
          priced.delta(),
          priced.days(),
          answer.budget(),
          priced.releases(),
          priced.cost(),
          answer.inFlight());
    }
    return reservation(priced.requestId(), answer.releases(), answer.budget());
  }

  /**
   * The reservation statement's result: how many reserve events it wrote (0 when the budget row
   * does not exist yet or the request already reserved) and the budget after its balance update,
   * all null when the update did not fit.
   */
  private record Reserved(
      int events,
      UUID id,
      BigDecimal rhoLimit,
      BigDecimal rhoTopUp,
      BigDecimal rhoSpent,
      BigDecimal delta,
      OffsetDateTime periodEnd) {
    Optional<BudgetRow> budget() {
      return id == null
          ? Optional.empty()
          : Optional.of(new BudgetRow(id, rhoLimit, rhoTopUp, rhoSpent, delta, periodEnd));
    }
  }

  /**
   * A reservation of {@code releases}, with ε figures from a budget row (as {@link
   * BudgetTable#budgetRow}).
   */
  private static Reservation reservation(String requestId, long releases, BudgetRow budget) {
    return new Reservation(
        requestId,
        releases,
        budget.epsilon(budget.rhoSpent()),
        budget.epsilon(budget.capacity()),
        budget.periodEnd());
  }

  /**
   * Why a reservation of {@code releases} (costing {@code cost}) does not fit {@code budget}, as
   * one of three answers ({@link BudgetRefusal}): it never can, it must wait for requests in flight
   * ({@code inFlight}: the ρ of the other open reservations), or the period's budget is spent.
   */
  private ApiProblem exhausted(
      String adapterRef,
      BigDecimal delta,
      int days,
      BudgetRow budget,
      long releases,
      BigDecimal cost,
      BigDecimal inFlight) {
    BigDecimal capacity = budget.capacity();
    BigDecimal spent = budget.rhoSpent();
    String figures =
        String.format(
            java.util.Locale.ROOT,
            "the privacy budget of this organisation for adapter %s (ε %.4f at δ %s per %d-day"
                + " period, %.4f spent or reserved) and the %d releases (noised LoRA inputs)"
                + " this request may make",
            adapterRef,
            budget.epsilon(capacity),
            delta.toPlainString(),
            days,
            budget.epsilon(spent),
            releases);
    return BudgetRefusal.of(cost, capacity, spent, inFlight)
        .problem(figures, budget.periodEnd(), OffsetDateTime.now());
  }

  /**
   * Writes the reservation's event (idempotent by request id) and then its balance, in one
   * statement: the budget row is locked by the last statement before commit, so reservations of one
   * budget queue only for that. No event is written when the request id has one or the period's
   * budget row is missing; no balance when the event was not written or the cost does not fit.
   */
  private Reserved reserveStatement(
      UUID org,
      BudgetPolicy policy,
      OffsetDateTime start,
      String requestId,
      long releases,
      BigDecimal cost) {
    return Rows.single(
        em.createNativeQuery(
                """
            WITH event AS (
              INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)
              SELECT id, :r, 'reserve', :n, :cost FROM dp_budget
              WHERE client_organisation_id = :org AND adapter_id = :adapter
                AND period_start = :start
              ON CONFLICT (request_id, kind) DO NOTHING
              RETURNING budget_id),
            balance AS (
              UPDATE dp_budget b SET rho_spent = b.rho_spent + :cost FROM event e
              WHERE b.id = e.budget_id AND b.rho_spent + :cost <= b.rho_limit + b.rho_top_up
              RETURNING b.id, b.rho_limit, b.rho_top_up, b.rho_spent, b.delta, b.period_end)
            SELECT (SELECT count(*) FROM event)::int, balance.*
            FROM (VALUES (1)) one LEFT JOIN balance ON true
            """)
            .setParameter("r", requestId)
            .setParameter("n", releases)
            .setParameter("cost", cost)
            .setParameter("org", org)
            .setParameter("adapter", policy.adapterId())
            .setParameter("start", start),
        Reserved.class);
  }

  /**
   * Settles a reservation to the releases actually made (in [0, reserved], else a 400 problem and
   * nothing changes), returning the rest to the budget. Idempotent; a no-op after a refund.
   */
  @Transactional
  public void settle(String requestId, long releases) {
    close(requestId, "settle", releases, false);
  }

  /**
   * Settles to the releases a node accounted for, which cannot exceed the reservation (the node
   * refuses prompts above the bound reserved for): should one ever, the whole reservation stays
   * spent and the difference is logged, since the budget never goes over its limit. A report for a
   * reservation already settled to its bound ({@link #settleToBound}) can only lower it.
   *
   * @return the budget's ε spent after it, or empty if the reservation was already closed
   */
  @Transactional
  public OptionalDouble settleReported(String requestId, long releases) {
    return close(requestId, "settle", releases, true).epsilon(requestId, releases);
  }

  /** Returns a whole reservation to the budget (no node took the request). Idempotent. */
  @Transactional
  public void refund(String requestId) {
    close(requestId, "refund", 0, false);
  }

  /** Takes {@code requestId}'s lock ({@link #REQUEST_LOCK}) until the transaction ends. */
  public void lockRequest(String requestId) {
    em.createNativeQuery("SELECT " + REQUEST_LOCK)
        .setParameter("lockedRequest", requestId)
        .getSingleResult();
  }

  /**
   * Settles an open reservation whose node has not reported to {@code releases} at most (the most
   * it can have released), as a {@code bound} event: the rest returns to the budget. A later report
   * can only lower it ({@link #settleReported}). No-op when the reservation is closed.
   *
   * @return whether it settled
   */
  @Transactional
  public boolean settleToBound(String requestId, long releases) {
    return close(requestId, "bound", releases, false).status().equals(Closed.SETTLED);
  }

  /**
   * What {@code close_reservation} did ({@code R__budget_rules.sql}, the one copy of how a
   * reservation closes, under the request's lock): its status, the releases reserved (null when
   * nothing was open), and the budget's ρ spent and δ after it (null when nothing changed).
   */
  public record Closed(String status, Long reserved, BigDecimal rhoSpent, BigDecimal delta) {
    /** An open reservation was closed. */
    public static final String SETTLED = "settled";

    /**
     * The budget's ε spent after it (empty when nothing changed), logging a node's count of {@code
     * releases} above the reservation (which stayed spent whole).
     */
    public OptionalDouble epsilon(String requestId, long releases) {
      if (reserved != null && releases > reserved) {
        Log.errorf(
            "request %s: the node accounted for %d DP releases, more than the %d reserved; the"
                + " reservation stays spent",
            requestId, releases, reserved);
      }
      return rhoSpent == null
          ? OptionalDouble.empty()
          : OptionalDouble.of(BudgetMaths.epsilon(rhoSpent, delta.doubleValue()));
    }
  }

  private Closed close(String requestId, String kind, long releases, boolean reported) {
    requireRequestId(requestId);
    try {
      return Rows.single(
          em.createNativeQuery("SELECT * FROM close_reservation(:r, :kind, :releases, :reported)")
              .setParameter("r", requestId)
              .setParameter("kind", kind)
              .setParameter("releases", releases)
              .setParameter("reported", reported),
          Closed.class);
    } catch (PersistenceException e) {
      throw SqlRefusal.words(e, "22023").map(ProblemTypes::validation).orElseThrow(() -> e);
    }
  }

  /** One event of a request: its ρ and releases. */
  private record Event(BigDecimal rho, long releases) {}

  private Optional<Event> event(String requestId, String kind) {
    return Rows.first(
        em.createNativeQuery(
                "SELECT rho, releases FROM dp_budget_event WHERE request_id = :r AND kind = :k")
            .setParameter("r", requestId)
            .setParameter("k", kind),
        Event.class);
  }

  private static void requireRequestId(String requestId) {
    if (requestId == null || requestId.isEmpty() || requestId.length() > 128) {
      throw ProblemTypes.validation("a request id has 1 to 128 characters");
    }
  }
}
