package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/**
 * Price changes: appended to the version's history, effective from their time on; a price in effect
 * is never changed, none can be scheduled in the past, and a rise only after a notice period (so a
 * client sees it in the catalogue before it applies).
 */
@ApplicationScoped
public class PriceService {
  @Inject CatalogConfig catalog;
  @Inject AdapterPriceRepository prices;
  @Inject OwnVersions versions;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  /**
   * Refuses a rise ({@link PriceLevel#risesFrom} the price in force just before {@code change}
   * would take effect: the prompt, completion or private price above, a private price compared as
   * private sessions pay it) that takes effect sooner than {@link CatalogConfig#priceRiseNotice()}
   * from now. Cuts take effect whenever the creator says.
   */
  private void requireNoticeForRise(AdapterVersion v, PriceChange change, OffsetDateTime now) {
    AdapterPrice before = prices.inForceBefore(v.id, change.effectiveFrom());
    boolean rise = PriceLevel.of(before.currency, change).risesFrom(PriceLevel.of(before));
    OffsetDateTime earliest = now.plus(catalog.priceRiseNotice());
    if (rise && change.effectiveFrom().isBefore(earliest)) {
      throw ProblemTypes.validation(
          "a price rise takes effect no sooner than "
              + catalog.priceRiseNotice().toDays()
              + " days after it is announced, so that clients see it in the catalogue first:"
              + " effectiveFrom must be at or after "
              + earliest);
    }
  }

  @Transactional
  public PriceChange schedule(String adapterRef, String version, PriceChange requested) {
    OffsetDateTime now = OffsetDateTime.now().truncatedTo(ChronoUnit.MILLIS);
    OffsetDateTime at = requested.effectiveFrom();
    if (at != null && at.isBefore(now.minus(PriceChange.NOW_TOLERANCE))) {
      throw ProblemTypes.validation(
          "effectiveFrom",
          "effectiveFrom "
              + at
              + " is in the past; prices never change retroactively (omit it, or send a time"
              + " within "
              + PriceChange.NOW_TOLERANCE.toMinutes()
              + " minutes of now, for \"now\")");
    }
    if (requested.retiredPrivatePrompt() != null || requested.retiredPrivateCompletion() != null) {
      throw ProblemTypes.validation(
          requested.retiredPrivatePrompt() != null
              ? "privatePromptMicrosPer1kTokens"
              : "privateCompletionMicrosPer1kTokens",
          "privatePromptMicrosPer1kTokens and privateCompletionMicrosPer1kTokens were replaced by"
              + " one privateMicrosPer1kTokens: private sessions pay one price per 1000 tokens"
              + " processed, prompt and completion alike (a node's work per token is the same)");
    }
    PriceChange change = at == null || at.isBefore(now) ? requested.from(now) : requested;
    AdapterVersion v = versions.find(adapterRef, version);
    String currency = prices.first(v.id).currency;
    if (prices.takesEffectAt(v.id, change.effectiveFrom())) {
      throw ProblemTypes.conflict("a price already takes effect at " + change.effectiveFrom());
    }
    requireNoticeForRise(v, change, now);
    AppUser user = current.user();
    AdapterPrice p = new AdapterPrice();
    p.adapterVersionId = v.id;
    p.currency = currency;
    p.promptMicrosPer1kTokens = change.promptMicrosPer1kTokens();
    p.completionMicrosPer1kTokens = change.completionMicrosPer1kTokens();
    p.privateMicrosPer1kTokens = change.privateMicrosPer1kTokens();
    p.effectiveFrom = change.effectiveFrom();
    p.createdAt = now;
    p.createdBy = user.id;
    prices.persist(p);
    audit.record(
        user,
        "price.schedule",
        "adapter-version",
        v.id.toString(),
        "{\"effective_from\":\"" + change.effectiveFrom() + "\"}");
    return change;
  }
}
