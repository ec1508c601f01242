package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes the charge ledger: one append-only row per request id, priced at the version's price in
 * force when the request started, split by the adapter's take (or the platform default). A replay
 * of the same request id with the same usage returns the first row and writes nothing, so a request
 * is billed once however often it is reported.
 */
@ApplicationScoped
public class ChargeLedger {
  @Inject BillingConfig billing;
  @Inject EntityManager em;

  private static final String VIEW =
      """
      SELECT c.request_id, a.adapter_ref, v.version, c.currency, c.prompt_tokens,
             c.completion_tokens, c.prompt_micros_per_1k_tokens, c.completion_micros_per_1k_tokens,
             c.take_basis_points, c.amount_micros, c.creator_micros, c.platform_micros,
             c.started_at
      FROM charge c
      JOIN adapter_version v ON v.id = c.adapter_version_id
      JOIN adapter a ON a.id = v.adapter_id
      WHERE c.request_id = :request
      """;

  /**
   * Records {@code charge} once.
   *
   * @throws io.tensafe.marketplace.problem.ApiProblem not-found for an unknown version, validation
   *     for bad counts or a start before the version had a price, conflict for a request id reused
   *     with different usage
   */
  @Transactional
  public ChargeView record(NewCharge charge) {
    Written w = write(charge);
    if (!w.inserted() && !w.sameUsage()) {
      throw ProblemTypes.conflict(
          "request id " + charge.requestId() + " was already billed with different usage");
    }
    return w.view();
  }

  /**
   * Records {@code charge} unless its request id is already billed, in which case the first charge
   * stands (whatever its usage) and is returned. For the gateway's account of a stream cut short,
   * which must not fail because a node's report got there first.
   */
  @Transactional
  public ChargeView recordUnlessBilled(NewCharge charge) {
    return write(charge).view();
  }

  /** The charge of {@code requestId}, if it was billed. */
  public java.util.Optional<ChargeView> find(String requestId) {
    return Rows.first(
        em.createNativeQuery(VIEW).setParameter("request", requestId), ChargeView.class);
  }

  private record Written(ChargeView view, boolean inserted, boolean sameUsage) {}

  /**
   * Writes {@code charge} in one database call, {@code record_charge} (the one copy of the pricing
   * and splitting rule, {@code charge_amounts}, in {@code R__charge_rules.sql}).
   */
  private Written write(NewCharge charge) {
    validate(charge);
    Recorded r;
    try {
      r =
          Rows.single(
              em.createNativeQuery(
                      "SELECT * FROM record_charge(:id, :request, :client, :key, :ref, :version,"
                          + " :prompt, :completion, :started, :reason, :defaultTake)")
                  .setParameter("id", UUID.randomUUID())
                  .setParameter("request", charge.requestId())
                  .setParameter("client", charge.clientOrganisationId())
                  .setParameter("key", charge.apiKeyId())
                  .setParameter("ref", charge.adapterRef())
                  .setParameter("version", charge.version())
                  .setParameter("prompt", charge.promptTokens())
                  .setParameter("completion", charge.completionTokens())
                  .setParameter("started", charge.startedAt())
                  .setParameter("reason", charge.routeReason())
                  .setParameter("defaultTake", billing.platformTakeBasisPoints()),
              Recorded.class);
    } catch (PersistenceException e) {
      throw io.tensafe.marketplace.sql.SqlRefusal.words(e, "22023")
          .map(ProblemTypes::validation)
          .orElseThrow(() -> e);
    }
    return switch (r.status()) {
      case "no_version" ->
          throw ProblemTypes.notFound(
              "adapter version " + charge.adapterRef() + "@" + charge.version());
      case "no_price" ->
          throw ProblemTypes.validation(
              "the request started before "
                  + charge.adapterRef()
                  + "@"
                  + charge.version()
                  + " had a price");
      default -> {
        boolean inserted = r.status().equals("inserted");
        ChargeView view = r.view();
        yield new Written(view, inserted, inserted || sameUsage(view, r.billedTo(), charge));
      }
    };
  }

  /**
   * A row of {@code record_charge}: {@code inserted}, {@code existing} (the stored charge, and the
   * organisation it was billed to) or {@code no_version} / {@code no_price} (the rest null).
   */
  private record Recorded(String status, ChargeView view, UUID billedTo) {}

  private static boolean sameUsage(ChargeView view, UUID billedTo, NewCharge charge) {
    return view.adapterId().equals(charge.adapterRef())
        && view.version().equals(charge.version())
        && view.promptTokens() == charge.promptTokens()
        && view.completionTokens() == charge.completionTokens()
        && Objects.equals(billedTo, charge.clientOrganisationId());
  }

  private static void validate(NewCharge charge) {
    if (charge.requestId() == null
        || charge.requestId().isEmpty()
        || charge.requestId().length() > 128) {
      throw ProblemTypes.validation("requestId must have 1 to 128 characters");
    }
    if (charge.clientOrganisationId() == null || charge.startedAt() == null) {
      throw ProblemTypes.validation("clientOrganisationId and startedAt are required");
    }
    if (charge.promptTokens() < 0 || charge.completionTokens() < 0) {
      throw ProblemTypes.validation("token counts must be >= 0");
    }
  }
}
