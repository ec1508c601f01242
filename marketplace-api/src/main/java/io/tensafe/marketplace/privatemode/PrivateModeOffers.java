package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.adapter.AdapterVersion;
import io.tensafe.marketplace.adapter.OwnVersions;
import io.tensafe.marketplace.adapter.PrivateModeView;
import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.gateway.ServedVersion;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * Private mode as its creator offers it, per version (issue 49): a version serves private sessions
 * only while its creator offers private mode for it, and each client organisation may run at most
 * the offer's tokens (prompt + completion) of its private sessions per period. A session reserves
 * its most tokens ({@code max_prompt_tokens + max_tokens}) in its admission's transaction ({@link
 * #reserve}, SQL {@code reserve_private_tokens}: one conditional UPDATE) and is settled to the
 * tokens it was billed when its request ends, by the database ({@code settle_private_tokens}, run
 * by a trigger on {@code gateway_request}'s end), so every path that ends a session settles it
 * once.
 */
@ApplicationScoped
public class PrivateModeOffers {
  @Inject EntityManager em;
  @Inject OwnVersions own;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  /**
   * Sets the current creator's private-mode offer for its version {@code adapterRef@version};
   * audit-logged.
   *
   * @throws ApiProblem 404 for a version that is not the creator's; 400 naming the field when
   *     offering without a quota
   */
  @Transactional
  public PrivateModeView set(String adapterRef, String version, PrivateModeChange change) {
    if (change == null || change.offered() == null) {
      throw ProblemTypes.validation("offered", "offered is required: true or false");
    }
    if (change.offered()) {
      if (change.tokensPerPeriod() == null) {
        throw ProblemTypes.validation(
            "tokensPerPeriod",
            "tokensPerPeriod is required to offer private mode: the most tokens (prompt and"
                + " completion) of private sessions each client organisation may run per period,"
                + " at least 1");
      }
      if (change.periodDays() == null) {
        throw ProblemTypes.validation(
            "periodDays",
            "periodDays is required to offer private mode: the length of a quota period in days,"
                + " 1 to 366");
      }
    }
    AdapterVersion v = own.find(adapterRef, version);
    PrivateModeView before = of(v.id);
    em.createNativeQuery(
            """
            INSERT INTO private_mode_offer AS o (adapter_version_id, offered, tokens_per_period,
                                                 period_days, set_by)
            VALUES (:version, :offered, :tokens, :days, :by)
            ON CONFLICT (adapter_version_id) DO UPDATE
            SET offered = excluded.offered,
                tokens_per_period = coalesce(excluded.tokens_per_period, o.tokens_per_period),
                period_days = coalesce(excluded.period_days, o.period_days),
                set_by = excluded.set_by, set_at = now()
            """)
        .unwrap(org.hibernate.query.NativeQuery.class)
        .setParameter("version", v.id)
        .setParameter("offered", change.offered())
        .setParameter("tokens", change.tokensPerPeriod(), Long.class)
        .setParameter("days", change.periodDays(), Integer.class)
        .setParameter("by", current.user().id)
        .executeUpdate();
    PrivateModeView after = of(v.id);
    audit.record(
        current.user(),
        "adapter-version.private-mode",
        "adapter-version",
        v.id.toString(),
        "{\"before\":" + json(before) + ",\"after\":" + json(after) + "}");
    return after;
  }

  private static String json(PrivateModeView m) {
    return "{\"offered\":"
        + m.offered()
        + ",\"tokensPerPeriod\":"
        + m.tokensPerPeriod()
        + ",\"periodDays\":"
        + m.periodDays()
        + "}";
  }

  /** The offer for version {@code versionId}; {@link PrivateModeView#NOT_OFFERED} without one. */
  public PrivateModeView of(UUID versionId) {
    return Rows.first(
            em.createNativeQuery(
                    "SELECT pm.offered, pm.tokens_per_period, pm.period_days, (SELECT min((t->'shape'->>1)::bigint) FROM jsonb_array_elements(v.manifest->'lora'->'tensors') t WHERE t->>'name' LIKE '%.lora_A.weight')"
                        + " FROM private_mode_offer pm JOIN adapter_version v ON v.id ="
                        + " pm.adapter_version_id WHERE pm.adapter_version_id = :v")
                .setParameter("v", versionId),
            PrivateModeView.class)
        .orElse(PrivateModeView.NOT_OFFERED);
  }

  /**
   * Refuses a session of {@code version} early, before its admission, when its creator does not
   * offer private mode for it (the admission checks again: {@link #reserve}).
   *
   * @throws ApiProblem 403 private-mode-not-offered
   */
  public void requireOffered(ServedVersion version) {
    if (!of(version.versionId()).offered()) {
      throw notOffered(version);
    }
  }

  /** What {@code reserve_private_tokens} answers. */
  private record Reserved(
      String outcome,
      Long quotaTokens,
      Integer quotaDays,
      OffsetDateTime periodEnd,
      Long taken,
      Long inFlight) {}

  /**
   * Reserves {@code tokens} of the quota of organisation {@code organisationId} for session {@code
   * requestId} of {@code version}, in the caller's transaction (the admission's, once the session
   * is recorded): a refusal rolls the whole admission back.
   *
   * @throws ApiProblem 403 when the offer was withdrawn meanwhile; 422
   *     private-token-quota-too-small when the session can never fit; 429
   *     private-token-quota-reserved when sessions in flight hold what it needs,
   *     private-token-quota-exhausted when the period's settled tokens leave too little
   *     (Retry-After: the period's end)
   */
  @Transactional(Transactional.TxType.MANDATORY)
  public void reserve(UUID requestId, UUID organisationId, ServedVersion version, long tokens) {
    OffsetDateTime now = OffsetDateTime.now();
    Reserved r =
        Rows.single(
            em.createNativeQuery(
                    "SELECT * FROM reserve_private_tokens(:request, :org, :version, :tokens, :at)")
                .setParameter("request", requestId)
                .setParameter("org", organisationId)
                .setParameter("version", version.versionId())
                .setParameter("tokens", tokens)
                .setParameter("at", now),
            Reserved.class);
    switch (r.outcome()) {
      case "reserved" -> {}
      case "not_offered" -> throw notOffered(version);
      case "refused" -> throw refusal(r, version, tokens, now);
      default -> throw new IllegalStateException("reserve_private_tokens: " + r.outcome());
    }
  }

  private static ApiProblem refusal(
      Reserved r, ServedVersion version, long tokens, OffsetDateTime now) {
    long quota = r.quotaTokens();
    long left = Math.max(0, quota - r.taken());
    String figures =
        "this organisation's private-token quota of "
            + version.adapterId()
            + "@"
            + version.version()
            + " is "
            + quota
            + " tokens per "
            + r.quotaDays()
            + (r.quotaDays() == 1 ? " day" : " days")
            + "; "
            + left
            + " are left until the period ends at "
            + r.periodEnd().withOffsetSameInstant(java.time.ZoneOffset.UTC)
            + ", and this session may run up to "
            + tokens
            + " (max_prompt_tokens + max_tokens)";
    if (tokens > quota) {
      return new ApiProblem(
              ProblemKind.PRIVATE_TOKENS_TOO_SMALL,
              figures
                  + ", more than a whole period's quota: ask for fewer max_tokens or"
                  + " max_prompt_tokens")
          .withParam("max_tokens");
    }
    if (r.taken() - r.inFlight() + tokens <= quota) {
      return new ApiProblem(
              ProblemKind.PRIVATE_TOKENS_RESERVED,
              figures
                  + "; sessions still open hold "
                  + r.inFlight()
                  + " of them and return what they do not use when they end: retry shortly",
              2)
          .withParam("max_tokens");
    }
    return new ApiProblem(
            ProblemKind.PRIVATE_TOKENS_EXHAUSTED,
            figures
                + ": ask for fewer max_tokens or max_prompt_tokens, or wait for the next period",
            (int)
                Math.min(
                    Integer.MAX_VALUE,
                    Math.max(1, Duration.between(now, r.periodEnd()).toSeconds())))
        .withParam("max_tokens");
  }

  private static ApiProblem notOffered(ServedVersion version) {
    return new ApiProblem(
            ProblemKind.PRIVATE_MODE_NOT_OFFERED,
            "the creator of "
                + version.adapterId()
                + "@"
                + version.version()
                + " does not offer private mode for it: use hosted mode"
                + " (/v1/chat/completions), or a version whose catalogue entry shows"
                + " privateMode.offered; nothing was billed")
        .withParam("model");
  }
}
