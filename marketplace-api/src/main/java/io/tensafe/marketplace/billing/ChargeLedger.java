package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
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

  private Written write(NewCharge charge) {
    validate(charge);
    VersionTake version =
        Rows.first(
                em.createNativeQuery(
                        """
                SELECT v.id, coalesce(a.platform_take_basis_points, :default)
                FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                WHERE a.adapter_ref = :ref AND v.version = :version
                """)
                    .setParameter("default", billing.platformTakeBasisPoints())
                    .setParameter("ref", charge.adapterRef())
                    .setParameter("version", charge.version()),
                VersionTake.class)
            .orElseThrow(
                () ->
                    ProblemTypes.notFound(
                        "adapter version " + charge.adapterRef() + "@" + charge.version()));
    UUID versionId = version.versionId();
    int take = version.takeBasisPoints();
    Price price =
        Rows.first(
                em.createNativeQuery(
                        """
                SELECT p.id, p.currency,
                    CASE WHEN g.mode = 'private' THEN coalesce(p.private_micros_per_1k_tokens,
                        greatest(p.prompt_micros_per_1k_tokens, p.completion_micros_per_1k_tokens))
                        ELSE p.prompt_micros_per_1k_tokens END,
                    CASE WHEN g.mode = 'private' THEN coalesce(p.private_micros_per_1k_tokens,
                        greatest(p.prompt_micros_per_1k_tokens, p.completion_micros_per_1k_tokens))
                        ELSE p.completion_micros_per_1k_tokens END
                FROM adapter_price p
                LEFT JOIN gateway_request g ON g.request_id::text = :request
                WHERE p.adapter_version_id = :version AND p.effective_from <= :started
                ORDER BY p.effective_from DESC LIMIT 1
                """)
                    .setParameter("version", versionId)
                    .setParameter("request", charge.requestId())
                    .setParameter("started", charge.startedAt()),
                Price.class)
            .orElseThrow(
                () ->
                    ProblemTypes.validation(
                        "the request started before "
                            + charge.adapterRef()
                            + "@"
                            + charge.version()
                            + " had a price"));
    long promptPrice = price.promptMicrosPer1kTokens();
    long completionPrice = price.completionMicrosPer1kTokens();
    ChargeAmounts amounts;
    try {
      amounts =
          ChargeAmounts.of(
              charge.promptTokens(), charge.completionTokens(), promptPrice, completionPrice, take);
    } catch (IllegalArgumentException e) {
      throw ProblemTypes.validation(e.getMessage());
    }
    int inserted =
        em.createNativeQuery(
                """
                INSERT INTO charge (id, request_id, client_organisation_id, api_key_id,
                    adapter_version_id, adapter_price_id, currency, prompt_tokens, completion_tokens,
                    prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens, take_basis_points,
                    amount_micros, creator_micros, platform_micros, route_reason, started_at)
                VALUES (:id, :request, :client, :key, :version, :price, :currency, :prompt,
                    :completion, :promptPrice, :completionPrice, :take, :amount, :creator,
                    :platform, :reason, :started)
                ON CONFLICT (request_id) DO NOTHING
                """)
            .setParameter("id", UUID.randomUUID())
            .setParameter("request", charge.requestId())
            .setParameter("client", charge.clientOrganisationId())
            .setParameter("key", charge.apiKeyId())
            .setParameter("version", versionId)
            .setParameter("price", price.id())
            .setParameter("currency", price.currency())
            .setParameter("prompt", charge.promptTokens())
            .setParameter("completion", charge.completionTokens())
            .setParameter("promptPrice", promptPrice)
            .setParameter("completionPrice", completionPrice)
            .setParameter("take", take)
            .setParameter("amount", amounts.amountMicros())
            .setParameter("creator", amounts.creatorMicros())
            .setParameter("platform", amounts.platformMicros())
            .setParameter("reason", charge.routeReason())
            .setParameter("started", charge.startedAt())
            .executeUpdate();
    ChargeView view =
        Rows.single(
            em.createNativeQuery(VIEW).setParameter("request", charge.requestId()),
            ChargeView.class);
    return new Written(view, inserted == 1, inserted == 1 || sameUsage(view, charge));
  }

  /** A version's id and the platform's take of its sales, in basis points (0 to 10 000). */
  private record VersionTake(UUID versionId, int takeBasisPoints) {}

  /**
   * The price in force: micro-units of {@code currency} per 1k tokens; for a private session (its
   * {@code gateway_request.mode}) one price for both: its private price, else the larger hosted one
   * (ADR 0024).
   */
  private record Price(
      long id, String currency, long promptMicrosPer1kTokens, long completionMicrosPer1kTokens) {}

  /** The client organisation a request id was billed to. */
  private record BilledTo(UUID clientOrganisationId) {}

  private boolean sameUsage(ChargeView view, NewCharge charge) {
    BilledTo billed =
        Rows.single(
            em.createNativeQuery("SELECT client_organisation_id FROM charge WHERE request_id = :r")
                .setParameter("r", charge.requestId()),
            BilledTo.class);
    return view.adapterId().equals(charge.adapterRef())
        && view.version().equals(charge.version())
        && view.promptTokens() == charge.promptTokens()
        && view.completionTokens() == charge.completionTokens()
        && Objects.equals(billed.clientOrganisationId(), charge.clientOrganisationId());
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
