package io.tensafe.marketplace.privacy;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * The {@code dp_budget} rows and the adapters' DP policies, in SQL: a period's budget is created on
 * first use with the policy's limit ({@link BudgetMaths#rhoLimit}); reads are unlocked or {@code
 * FOR UPDATE}. Callers hold the transaction ({@link PrivacyBudgets}, {@link BudgetTopUps}).
 */
@ApplicationScoped
public class BudgetTable {
  @Inject EntityManager em;

  /**
   * Creates, if it does not exist yet, the budget of this organisation for the policy's adapter in
   * the period containing {@code now}, with the policy's limit; returns the period's start.
   */
  OffsetDateTime ensureBudget(UUID clientOrganisationId, BudgetPolicy policy, Instant now) {
    OffsetDateTime start = BudgetMaths.periodStart(policy.days(), now);
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
        .setParameter("limit", rhoLimit(policy))
        .executeUpdate();
    return start;
  }

  static final String BUDGET_ROW =
      """
      SELECT id, rho_limit, rho_top_up, rho_spent, delta, period_end
      FROM dp_budget
      WHERE client_organisation_id = :org AND adapter_id = :adapter AND period_start = :start
      """;

  /** A budget row, unlocked. */
  BudgetRow budgetRow(UUID clientOrganisationId, UUID adapterId, OffsetDateTime start) {
    return budgetRow(BUDGET_ROW, clientOrganisationId, adapterId, start);
  }

  private BudgetRow budgetRow(
      String sql, UUID clientOrganisationId, UUID adapterId, OffsetDateTime start) {
    return Rows.single(
        em.createNativeQuery(sql)
            .setParameter("org", clientOrganisationId)
            .setParameter("adapter", adapterId)
            .setParameter("start", start),
        BudgetRow.class);
  }

  /**
   * Locks and returns a budget row (as {@link #budgetRow}). Top-ups of one budget are serialised by
   * this lock; reservations lock the row only in their final balance update.
   */
  BudgetRow lockBudget(UUID clientOrganisationId, UUID adapterId, OffsetDateTime start) {
    return budgetRow(BUDGET_ROW + " FOR UPDATE", clientOrganisationId, adapterId, start);
  }

  /** The policy of the adapter's newest published version. */
  BudgetPolicy currentPolicy(String adapterRef) {
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

  /**
   * The policy of {@code adapterRef@version}.
   *
   * @throws ApiProblem not-found for an unknown version
   */
  BudgetPolicy policy(String adapterRef, String version) {
    String key = adapterRef + "@" + version;
    BudgetPolicy known = policies.get(key);
    if (known != null) {
      return known;
    }
    // In the caller's transaction, else its own: the hosted admission has none (ADR 0042).
    BudgetPolicy read =
        io.quarkus.narayana.jta.QuarkusTransaction.joiningExisting()
            .call(() -> readPolicy(adapterRef, version))
            .orElseThrow(
                () -> ProblemTypes.notFound("adapter version " + adapterRef + "@" + version));
    if (policies.size() >= MAX_CACHED_POLICIES) {
      policies.clear();
    }
    policies.put(key, read);
    return read;
  }

  /**
   * A period's ρ limit under {@code policy} ({@link BudgetMaths#rhoLimit}, a bisection), computed
   * once per policy.
   */
  BigDecimal rhoLimit(BudgetPolicy policy) {
    String key = policy.epsilon().toPlainString() + "/" + policy.delta().toPlainString();
    BigDecimal known = limits.get(key);
    if (known != null) {
      return known;
    }
    BigDecimal limit =
        BudgetMaths.rhoLimit(policy.epsilon().doubleValue(), policy.delta().doubleValue());
    if (limits.size() >= MAX_CACHED_POLICIES) {
      limits.clear();
    }
    limits.put(key, limit);
    return limit;
  }

  /** ρ limits by {@code ε/δ}: a function of the two alone. */
  private final java.util.concurrent.ConcurrentHashMap<String, BigDecimal> limits =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** At most this many policies are kept; past it the cache starts again. */
  private static final int MAX_CACHED_POLICIES = 10_000;

  /**
   * Policies by {@code adapterRef@version}: a version's policy is fixed (its signed manifest's; the
   * database refuses a change, migration V24), so a copy never goes stale.
   */
  private final java.util.concurrent.ConcurrentHashMap<String, BudgetPolicy> policies =
      new java.util.concurrent.ConcurrentHashMap<>();

  private java.util.Optional<BudgetPolicy> readPolicy(String adapterRef, String version) {
    return Rows.first(
        em.createNativeQuery(
                """
                SELECT a.id, p.noise_multiplier, p.delta, p.epsilon_budget_per_period, p.period_days
                FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                JOIN dp_policy p ON p.id = v.dp_policy_id
                WHERE a.adapter_ref = :ref AND v.version = :version
                """)
            .setParameter("ref", adapterRef)
            .setParameter("version", version),
        BudgetPolicy.class);
  }

  /** A sum of ρ. */
  private record Total(BigDecimal rho) {}

  /**
   * ρ held by reservations of {@code budgetId} that are neither settled nor refunded, other than
   * {@code requestId}'s own (whose event this transaction has written and will roll back).
   */
  BigDecimal reservedInFlight(UUID budgetId, String requestId) {
    return Rows.single(
            em.createNativeQuery(
                    """
                SELECT coalesce(sum(r.rho), 0) FROM dp_budget_event r
                WHERE r.budget_id = :b AND r.kind = 'reserve' AND r.request_id <> :own
                  AND NOT EXISTS (SELECT 1 FROM dp_budget_event e
                                  WHERE e.request_id = r.request_id AND e.kind IN ('settle', 'refund', 'bound'))
                """)
                .setParameter("b", budgetId)
                .setParameter("own", requestId),
            Total.class)
        .rho();
  }
}
