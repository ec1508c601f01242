package io.tensafe.marketplace.privacy;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Lists privacy budgets and lets admins top them up.
 *
 * <p>A top-up of Δε raises the period's available zCDP ρ from ρ to ρ' = ρ_limit(ε(ρ) + Δε), where
 * ε(ρ) = ρ + 2·sqrt(ρ·ln(1/δ)) is the same conversion the policy's limit is set by; the difference
 * is recorded as a {@code top-up} event (append-only, once per reference) and added to the budget's
 * {@code rho_top_up}. Top-ups apply to the period in force now and end with it.
 */
@ApplicationScoped
public class BudgetTopUps {
  @Inject EntityManager em;
  @Inject BudgetTable table;
  @Inject AuditLog audit;

  /** The budget after a top-up, and whether this call made it (false: a replayed reference). */
  public record Result(BudgetView budget, boolean created) {}

  /**
   * @throws io.tensafe.marketplace.problem.ApiProblem not-found for an unknown organisation or
   *     unpublished adapter; conflict when the reference was used for another budget
   */
  @Transactional
  public Result topUp(AppUser admin, TopUpRequest request, Instant now) {
    UUID org = organisation(request.organisation());
    BudgetPolicy policy = table.currentPolicy(request.adapter());
    OffsetDateTime start = table.ensureBudget(org, policy, now);
    BudgetRow row = table.lockBudget(org, policy.adapterId(), start);
    UUID budgetId = row.id();
    String eventId = "top-up:" + request.reference();
    List<?> earlier =
        em.createNativeQuery(
                "SELECT budget_id FROM dp_budget_event WHERE request_id = :r AND kind = 'top-up'")
            .setParameter("r", eventId)
            .getResultList();
    if (!earlier.isEmpty()) {
      if (!earlier.getFirst().equals(budgetId)) {
        throw ProblemTypes.conflict(
            "top-up reference " + request.reference() + " was used for another budget");
      }
      return new Result(view(budgetId), false);
    }
    BigDecimal available = row.capacity();
    double epsilonNow = row.epsilon(available);
    BigDecimal raised =
        BudgetMaths.rhoLimit(epsilonNow + request.epsilon(), row.delta().doubleValue());
    BigDecimal added = raised.subtract(available).max(BigDecimal.ZERO);
    em.createNativeQuery(
            "INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)"
                + " VALUES (:b, :r, 'top-up', 0, :rho)")
        .setParameter("b", budgetId)
        .setParameter("r", eventId)
        .setParameter("rho", added)
        .executeUpdate();
    em.createNativeQuery("UPDATE dp_budget SET rho_top_up = rho_top_up + :rho WHERE id = :b")
        .setParameter("rho", added)
        .setParameter("b", budgetId)
        .executeUpdate();
    audit.record(
        admin,
        "dp-budget.top-up",
        "dp-budget",
        budgetId.toString(),
        String.format(
            Locale.ROOT,
            "{\"organisation\":\"%s\",\"adapter\":\"%s\",\"epsilon\":%s,\"reference\":\"%s\"}",
            request.organisation(),
            request.adapter(),
            request.epsilon(),
            request.reference()));
    return new Result(view(budgetId), true);
  }

  /** The organisation's budgets whose period has not ended, by adapter. */
  @Transactional
  public List<BudgetView> current(UUID organisation, Instant now) {
    List<BudgetView> views = new ArrayList<>();
    for (Object id :
        em.createNativeQuery(
                """
                SELECT b.id FROM dp_budget b JOIN adapter a ON a.id = b.adapter_id
                WHERE b.client_organisation_id = :org AND b.period_end > :now
                ORDER BY a.adapter_ref, b.period_start
                """)
            .setParameter("org", organisation)
            .setParameter("now", now.atOffset(java.time.ZoneOffset.UTC))
            .getResultList()) {
      views.add(view((UUID) id));
    }
    return views;
  }

  /** The id of the organisation with this slug, or not-found. */
  public UUID organisation(String slug) {
    List<?> rows =
        em.createNativeQuery("SELECT id FROM organisation WHERE slug = :s")
            .setParameter("s", slug)
            .getResultList();
    if (rows.isEmpty()) {
      throw ProblemTypes.notFound("organisation " + slug);
    }
    return (UUID) rows.getFirst();
  }

  /** A budget with its adapter, as the budget pages show it. */
  private record ShownBudget(
      String adapterRef,
      OffsetDateTime periodStart,
      OffsetDateTime periodEnd,
      BigDecimal delta,
      BigDecimal rhoLimit,
      BigDecimal rhoTopUp,
      BigDecimal rhoSpent) {}

  private BudgetView view(UUID budgetId) {
    ShownBudget r =
        Rows.single(
            em.createNativeQuery(
                    """
                    SELECT a.adapter_ref, b.period_start, b.period_end, b.delta, b.rho_limit,
                           b.rho_top_up, b.rho_spent
                    FROM dp_budget b JOIN adapter a ON a.id = b.adapter_id WHERE b.id = :b
                    """)
                .setParameter("b", budgetId),
            ShownBudget.class);
    double delta = r.delta().doubleValue();
    double epsilonLimit = BudgetMaths.epsilon(r.rhoLimit().add(r.rhoTopUp()), delta);
    double epsilonSpent = BudgetMaths.epsilon(r.rhoSpent(), delta);
    // One unit everywhere: the share shown beside "ε spent" is of ε, not of ρ.
    double fraction = epsilonLimit <= 0 ? 1 : Math.min(1, epsilonSpent / epsilonLimit);
    return new BudgetView(
        r.adapterRef(),
        r.periodStart(),
        r.periodEnd(),
        delta,
        epsilonLimit,
        epsilonSpent,
        fraction);
  }
}
