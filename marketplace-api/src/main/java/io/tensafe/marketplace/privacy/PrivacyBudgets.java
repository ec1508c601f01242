package io.tensafe.marketplace.privacy;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.SqlValues;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalDouble;
import java.util.UUID;

/**
 * Differential-privacy budgets per client organisation, adapter and period.
 *
 * <p>Accounting: the unit is the <em>release</em>, one clipped, Gaussian-noised LoRA input with the
 * serving version's noise multiplier z, costing zCDP {@code ρ = 1/(2z²)}; costs add. A node makes
 * {@code releasesPerToken} releases (the adapter's distinct LoRA inputs, {@code LoraInputs}) for
 * every token its model processes: each prompt token in prefill, each generated token fed back. A
 * period's limit is the largest ρ whose zCDP conversion {@code ρ + 2·sqrt(ρ·ln(1/δ))} stays within
 * the policy's ε: {@code ρ_limit = (sqrt(ln(1/δ) + ε) − sqrt(ln(1/δ)))²}. Reported ε uses the
 * tighter RDP conversion ({@link RdpAccountant}). Periods are aligned to the Unix epoch: period k
 * of a d-day policy is [k·d, (k+1)·d) days.
 *
 * <p>Flow: {@link #reserve} the most a request can release before dispatch (atomic under a row
 * lock: concurrent requests can never overspend, and the database refuses an overspent row too),
 * {@link #settle} to the releases the node made, {@link #refund} when no node took the request. All
 * three are idempotent by request id. An exhausted budget is a 429 problem naming the budget and
 * when it resets.
 */
@ApplicationScoped
public class PrivacyBudgets {
  static final MathContext MATH = MathContext.DECIMAL128;

  @Inject EntityManager em;

  record Policy(
      UUID adapterId, BigDecimal noiseMultiplier, BigDecimal delta, BigDecimal epsilon, int days) {}

  /**
   * The L2 sensitivity of one release in clip norms. Neighbouring inputs (ADR 0010): one LoRA input
   * replaced by any other, so two inputs clipped to norm C differ by at most 2C.
   */
  static final BigDecimal SENSITIVITY_IN_CLIP_NORMS = BigDecimal.TWO;

  /**
   * zCDP cost of one release at noise multiplier z (σ = zC) and sensitivity Δ = 2C: Δ²/(2σ²) =
   * 2/z².
   */
  static BigDecimal rhoPerRelease(BigDecimal noiseMultiplier) {
    return SENSITIVITY_IN_CLIP_NORMS
        .multiply(SENSITIVITY_IN_CLIP_NORMS)
        .divide(noiseMultiplier.multiply(noiseMultiplier, MATH).multiply(BigDecimal.TWO), MATH);
  }

  /**
   * The largest ρ whose ε at δ is at most {@code epsilon}, by the same conversion every page and
   * answer shows ε with ({@link #epsilon}, the RDP one): so a budget of the policy's ε shows that
   * ε, not a smaller figure from a looser conversion. Found by bisection (ε is increasing in ρ),
   * then rounded down so floating error never grants more than the policy allows.
   */
  static BigDecimal rhoLimit(double epsilon, double delta) {
    double lo = 0;
    double hi = Math.max(epsilon, 1e-9);
    while (new RdpAccountant(hi).epsilon(delta) <= epsilon) {
      lo = hi;
      hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > lo * 1e-15; i++) {
      double mid = (lo + hi) / 2;
      if (new RdpAccountant(mid).epsilon(delta) <= epsilon) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return new BigDecimal(lo * (1 - 1e-12), MATH).setScale(24, RoundingMode.FLOOR);
  }

  /**
   * Reserves {@code releases} releases of the budget of {@code clientOrganisationId} for the
   * adapter of {@code adapterRef@version}, in the period containing {@code now}.
   *
   * @throws ApiProblem 429 when the budget cannot cover the request; 404 for an unknown version
   */
  @Transactional
  public Reservation reserve(
      UUID clientOrganisationId,
      String adapterRef,
      String version,
      String requestId,
      long releases,
      Instant now) {
    if (releases < 1) {
      throw ProblemTypes.validation("a reservation must cover at least 1 release");
    }
    requireRequestId(requestId);
    Policy policy = policy(adapterRef, version);
    OffsetDateTime start = periodStart(policy, now);
    BigDecimal cost =
        rhoPerRelease(policy.noiseMultiplier())
            .multiply(BigDecimal.valueOf(releases), MATH)
            .setScale(24, RoundingMode.CEILING);
    // The event first (idempotent by request id), the balance last: the budget row is locked by
    // the last statement before commit, so reservations of one budget queue only for that.
    int inserted =
        insertReserveEvent(clientOrganisationId, policy, start, requestId, releases, cost);
    if (inserted == 0) {
      List<?> existing = event(requestId, "reserve");
      if (!existing.isEmpty()) {
        return reservation(
            requestId,
            ((Number) ((Object[]) existing.getFirst())[1]).longValue(),
            budgetRow(clientOrganisationId, policy.adapterId(), start));
      }
      ensureBudget(clientOrganisationId, policy, now);
      insertReserveEvent(clientOrganisationId, policy, start, requestId, releases, cost);
    }
    List<?> after =
        em.createNativeQuery(
                """
                UPDATE dp_budget SET rho_spent = rho_spent + :cost
                WHERE client_organisation_id = :org AND adapter_id = :adapter
                  AND period_start = :start AND rho_spent + :cost <= rho_limit + rho_top_up
                RETURNING id, rho_limit, rho_top_up, rho_spent, delta, period_end
                """)
            .setParameter("cost", cost)
            .setParameter("org", clientOrganisationId)
            .setParameter("adapter", policy.adapterId())
            .setParameter("start", start)
            .getResultList();
    if (after.isEmpty()) {
      // Rolled back with the transaction: the event above is not kept.
      throw exhausted(
          adapterRef,
          policy,
          budgetRow(clientOrganisationId, policy.adapterId(), start),
          requestId,
          releases,
          cost);
    }
    return reservation(requestId, releases, (Object[]) after.getFirst());
  }

  /**
   * A reservation of {@code releases}, with ε figures from a budget row (as {@link #budgetRow}).
   */
  private static Reservation reservation(String requestId, long releases, Object[] budget) {
    double delta = decimal(budget[4]).doubleValue();
    return new Reservation(
        requestId,
        releases,
        epsilon(decimal(budget[3]), delta),
        epsilon(decimal(budget[1]).add(decimal(budget[2])), delta),
        SqlValues.toOffset(budget[5]));
  }

  /**
   * Why a reservation of {@code releases} (costing {@code cost}) does not fit {@code budget}, as
   * one of three answers ({@link BudgetRefusal}): it never can, it must wait for requests in
   * flight, or the period's budget is spent.
   */
  private ApiProblem exhausted(
      String adapterRef,
      Policy policy,
      Object[] budget,
      String requestId,
      long releases,
      BigDecimal cost) {
    double delta = decimal(budget[4]).doubleValue();
    BigDecimal capacity = decimal(budget[1]).add(decimal(budget[2]));
    BigDecimal spent = decimal(budget[3]);
    BigDecimal inFlight = reservedInFlight((UUID) budget[0], requestId);
    String figures =
        String.format(
            java.util.Locale.ROOT,
            "the privacy budget of this organisation for adapter %s (ε %.4f at δ %s per %d-day"
                + " period, %.4f spent or reserved) and the %d releases (noised LoRA inputs)"
                + " this request may make",
            adapterRef,
            epsilon(capacity, delta),
            policy.delta().toPlainString(),
            policy.days(),
            epsilon(spent, delta),
            releases);
    return BudgetRefusal.of(cost, capacity, spent, inFlight)
        .problem(figures, SqlValues.toOffset(budget[5]), java.time.OffsetDateTime.now());
  }

  /**
   * ρ held by reservations of {@code budgetId} that are neither settled nor refunded, other than
   * {@code requestId}'s own (whose event this transaction has written and will roll back).
   */
  private BigDecimal reservedInFlight(UUID budgetId, String requestId) {
    return decimal(
        em.createNativeQuery(
                """
                SELECT coalesce(sum(r.rho), 0) FROM dp_budget_event r
                WHERE r.budget_id = :b AND r.kind = 'reserve' AND r.request_id <> :own
                  AND NOT EXISTS (SELECT 1 FROM dp_budget_event e
                                  WHERE e.request_id = r.request_id AND e.kind IN ('settle', 'refund', 'bound'))
                """)
            .setParameter("b", budgetId)
            .setParameter("own", requestId)
            .getSingleResult());
  }

  /** Inserts the reservation's event; 0 when the request id has one or the budget is missing. */
  private int insertReserveEvent(
      UUID org,
      Policy policy,
      OffsetDateTime start,
      String requestId,
      long releases,
      BigDecimal cost) {
    return em.createNativeQuery(
            """
            INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)
            SELECT id, :r, 'reserve', :n, :rho FROM dp_budget
            WHERE client_organisation_id = :org AND adapter_id = :adapter AND period_start = :start
            ON CONFLICT (request_id, kind) DO NOTHING
            """)
        .setParameter("r", requestId)
        .setParameter("n", releases)
        .setParameter("rho", cost)
        .setParameter("org", org)
        .setParameter("adapter", policy.adapterId())
        .setParameter("start", start)
        .executeUpdate();
  }

  /**
   * Settles a reservation to the releases actually made (at most those reserved), returning the
   * rest to the budget. Idempotent; a no-op after a refund.
   */
  @Transactional
  public void settle(String requestId, long releases) {
    settle(requestId, releases, false);
  }

  /**
   * Settles to the releases a node accounted for, which cannot exceed the reservation (the node
   * refuses prompts above the bound reserved for): should one ever, the whole reservation stays
   * spent and the difference is logged, since the budget never goes over its limit. A report for a
   * reservation already settled to its bound ({@link #settleToBound}) can only lower it.
   */
  @Transactional
  public OptionalDouble settleReported(String requestId, long releases) {
    return settle(requestId, releases, true);
  }

  /** The budget's ε spent after settling, or empty if the reservation was already closed. */
  private OptionalDouble settle(String requestId, long releases, boolean reported) {
    Object[] reserve = openReservation(requestId);
    if (reserve == null) {
      return reported ? lowerBound(requestId, releases) : OptionalDouble.empty();
    }
    long reserved = ((Number) reserve[1]).longValue();
    if (!reported && (releases < 0 || releases > reserved)) {
      throw ProblemTypes.validation(
          "settled releases must be in [0, " + reserved + "], was " + releases);
    }
    if (releases > reserved) {
      Log.errorf(
          "request %s: the node accounted for %d DP releases, more than the %d reserved; the"
              + " reservation stays spent",
          requestId, releases, reserved);
    }
    return OptionalDouble.of(settleOpen(reserve, requestId, Math.clamp(releases, 0, reserved)));
  }

  private double settleOpen(Object[] reserve, String requestId, long releases) {
    long reserved = ((Number) reserve[1]).longValue();
    BigDecimal reservedRho = decimal(reserve[2]);
    BigDecimal used = share(reservedRho, releases, reserved);
    insertEvent((UUID) reserve[0], requestId, "settle", releases, used);
    return giveBack((UUID) reserve[0], reservedRho.subtract(used));
  }

  /** Returns a whole reservation to the budget (no node took the request). Idempotent. */
  @Transactional
  public void refund(String requestId) {
    Object[] reserve = openReservation(requestId);
    if (reserve == null) {
      return;
    }
    BigDecimal reservedRho = decimal(reserve[2]);
    insertEvent((UUID) reserve[0], requestId, "refund", 0, reservedRho);
    giveBack((UUID) reserve[0], reservedRho);
  }

  /**
   * Budget id, releases and ρ of {@code requestId}'s reservation if it is neither settled nor
   * refunded, else null. Takes a transaction-scoped lock on the request id, so one request's
   * settlement and refund are serialised without locking its budget, whose row is locked only by
   * the final balance update ({@link #giveBack}).
   */
  private Object[] openReservation(String requestId) {
    requireRequestId(requestId);
    em.createNativeQuery("SELECT pg_advisory_xact_lock(hashtextextended(:r, 7))")
        .setParameter("r", requestId)
        .getSingleResult();
    List<?> rows =
        em.createNativeQuery(
                """
                SELECT e.budget_id, e.releases, e.rho FROM dp_budget_event e
                WHERE e.request_id = :r AND e.kind = 'reserve'
                  AND NOT EXISTS (SELECT 1 FROM dp_budget_event f
                                  WHERE f.request_id = :r
                                    AND f.kind IN ('settle', 'refund', 'bound'))
                """)
            .setParameter("r", requestId)
            .getResultList();
    return rows.isEmpty() ? null : (Object[]) rows.getFirst();
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
    Object[] reserve = openReservation(requestId);
    if (reserve == null) {
      return false;
    }
    long reserved = ((Number) reserve[1]).longValue();
    long kept = Math.clamp(releases, 0, reserved);
    BigDecimal reservedRho = decimal(reserve[2]);
    BigDecimal used = share(reservedRho, kept, reserved);
    insertEvent((UUID) reserve[0], requestId, "bound", kept, used);
    giveBack((UUID) reserve[0], reservedRho.subtract(used));
    return true;
  }

  /**
   * A report for a request settled to its bound: lowers the settlement to {@code releases} when
   * that is less, never raises it. Empty when there is no bound or it was already lowered.
   */
  private OptionalDouble lowerBound(String requestId, long releases) {
    if (!event(requestId, "settle").isEmpty()) {
      return OptionalDouble.empty();
    }
    List<?> bound =
        em.createNativeQuery(
                "SELECT b.budget_id, b.releases, b.rho, r.releases, r.rho FROM dp_budget_event b"
                    + " JOIN dp_budget_event r ON r.request_id = b.request_id AND r.kind = 'reserve'"
                    + " WHERE b.request_id = :r AND b.kind = 'bound'")
            .setParameter("r", requestId)
            .getResultList();
    if (bound.isEmpty()) {
      return OptionalDouble.empty();
    }
    Object[] b = (Object[]) bound.getFirst();
    long boundReleases = ((Number) b[1]).longValue();
    long settled = Math.clamp(releases, 0, boundReleases);
    BigDecimal boundRho = decimal(b[2]);
    BigDecimal used = share(decimal(b[4]), settled, ((Number) b[3]).longValue()).min(boundRho);
    insertEvent((UUID) b[0], requestId, "settle", settled, used);
    return OptionalDouble.of(giveBack((UUID) b[0], boundRho.subtract(used)));
  }

  /** {@code releases} of a reservation of {@code reserved} releases costing {@code rho}. */
  private static BigDecimal share(BigDecimal rho, long releases, long reserved) {
    return rho.multiply(BigDecimal.valueOf(releases))
        .divide(BigDecimal.valueOf(reserved), 24, RoundingMode.CEILING)
        .min(rho);
  }

  /** Returns {@code rho} to the budget; the budget's ε spent afterwards. */
  private double giveBack(UUID budget, BigDecimal rho) {
    Object[] after =
        (Object[])
            em.createNativeQuery(
                    "UPDATE dp_budget SET rho_spent = rho_spent - :rho WHERE id = :b"
                        + " RETURNING rho_spent, delta")
                .setParameter("rho", rho)
                .setParameter("b", budget)
                .getSingleResult();
    return epsilon(decimal(after[0]), decimal(after[1]).doubleValue());
  }

  private List<?> event(String requestId, String kind) {
    return em.createNativeQuery(
            "SELECT rho, releases FROM dp_budget_event WHERE request_id = :r AND kind = :k")
        .setParameter("r", requestId)
        .setParameter("k", kind)
        .getResultList();
  }

  private void insertEvent(
      UUID budget, String requestId, String kind, long releases, BigDecimal rho) {
    em.createNativeQuery(
            "INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)"
                + " VALUES (:b, :r, :k, :t, :rho)")
        .setParameter("b", budget)
        .setParameter("r", requestId)
        .setParameter("k", kind)
        .setParameter("t", releases)
        .setParameter("rho", rho)
        .executeUpdate();
  }

  /**
   * Creates, if it does not exist yet, the budget of this organisation for the policy's adapter in
   * the period containing {@code now}, with the policy's limit; returns the period's start.
   */
  OffsetDateTime ensureBudget(UUID clientOrganisationId, Policy policy, Instant now) {
    OffsetDateTime start = periodStart(policy, now);
    OffsetDateTime end = start.plusDays(policy.days());
    em.createNativeQuery(
            """
            INSERT INTO dp_budget (id, client_organisation_id, adapter_id, period_start, period_end,
                                   delta, rho_limit)
            VALUES (:id, :org, :adapter, :start, :end, :delta, :limit)
            ON CONFLICT (client_organisation_id, adapter_id, period_start) DO NOTHING
            """)
        .setParameter("id", UUID.randomUUID())
        .setParameter("org", clientOrganisationId)
        .setParameter("adapter", policy.adapterId())
        .setParameter("start", start)
        .setParameter("end", end)
        .setParameter("delta", policy.delta())
        .setParameter(
            "limit", rhoLimit(policy.epsilon().doubleValue(), policy.delta().doubleValue()))
        .executeUpdate();
    return start;
  }

  /** The start of the epoch-aligned period of {@code policy} that contains {@code now}. */
  static OffsetDateTime periodStart(Policy policy, Instant now) {
    long periodMillis = Duration.ofDays(policy.days()).toMillis();
    long index = Math.floorDiv(now.toEpochMilli(), periodMillis);
    return Instant.ofEpochMilli(index * periodMillis).atOffset(ZoneOffset.UTC);
  }

  private static final String BUDGET_ROW =
      """
      SELECT id, rho_limit, rho_top_up, rho_spent, delta, period_end
      FROM dp_budget
      WHERE client_organisation_id = :org AND adapter_id = :adapter AND period_start = :start
      """;

  /** A budget row, unlocked: id, rho_limit, rho_top_up, rho_spent, delta, period_end. */
  private Object[] budgetRow(UUID clientOrganisationId, UUID adapterId, OffsetDateTime start) {
    return budgetRow(BUDGET_ROW, clientOrganisationId, adapterId, start);
  }

  private Object[] budgetRow(
      String sql, UUID clientOrganisationId, UUID adapterId, OffsetDateTime start) {
    return (Object[])
        em.createNativeQuery(sql)
            .setParameter("org", clientOrganisationId)
            .setParameter("adapter", adapterId)
            .setParameter("start", start)
            .getSingleResult();
  }

  /**
   * Locks and returns a budget row (as {@link #budgetRow}). Top-ups of one budget are serialised by
   * this lock; reservations lock the row only in their final balance update.
   */
  Object[] lockBudget(UUID clientOrganisationId, UUID adapterId, OffsetDateTime start) {
    return budgetRow(BUDGET_ROW + " FOR UPDATE", clientOrganisationId, adapterId, start);
  }

  /** The policy of the adapter's newest published version. */
  Policy currentPolicy(String adapterRef) {
    List<?> rows =
        em.createNativeQuery(
                """
                SELECT v.version FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                WHERE a.adapter_ref = :ref AND v.state = 'published'
                ORDER BY v.version_major DESC, v.version_minor DESC, v.version_patch DESC
                LIMIT 1
                """)
            .setParameter("ref", adapterRef)
            .getResultList();
    if (rows.isEmpty()) {
      throw ProblemTypes.notFound("published adapter " + adapterRef);
    }
    return policy(adapterRef, (String) rows.getFirst());
  }

  private Policy policy(String adapterRef, String version) {
    List<?> rows =
        em.createNativeQuery(
                """
                SELECT a.id, p.noise_multiplier, p.delta, p.epsilon_budget_per_period, p.period_days
                FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                JOIN dp_policy p ON p.id = v.dp_policy_id
                WHERE a.adapter_ref = :ref AND v.version = :version
                """)
            .setParameter("ref", adapterRef)
            .setParameter("version", version)
            .getResultList();
    if (rows.isEmpty()) {
      throw ProblemTypes.notFound("adapter version " + adapterRef + "@" + version);
    }
    Object[] r = (Object[]) rows.getFirst();
    return new Policy(
        (UUID) r[0], decimal(r[1]), decimal(r[2]), decimal(r[3]), ((Number) r[4]).intValue());
  }

  static double epsilon(BigDecimal rho, double delta) {
    return new RdpAccountant(rho.doubleValue()).epsilon(delta);
  }

  static BigDecimal decimal(Object value) {
    return value instanceof BigDecimal d ? d : new BigDecimal(value.toString());
  }

  private static void requireRequestId(String requestId) {
    if (requestId == null || requestId.isEmpty() || requestId.length() > 128) {
      throw ProblemTypes.validation("a request id has 1 to 128 characters");
    }
  }
}
