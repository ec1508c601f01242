package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/**
 * Price changes: appended to the version's history, effective from their time on; a price in effect
 * is never changed, and none can be scheduled in the past.
 */
@ApplicationScoped
public class PriceService {
  @Inject EntityManager em;
  @Inject OwnVersions versions;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  @Transactional
  public PriceChange schedule(String adapterRef, String version, PriceChange change) {
    OffsetDateTime now = OffsetDateTime.now().truncatedTo(ChronoUnit.MILLIS);
    if (change.effectiveFrom().isBefore(now)) {
      throw ProblemTypes.validation(
          "effectiveFrom "
              + change.effectiveFrom()
              + " is in the past; prices never change retroactively");
    }
    AdapterVersion v = versions.find(adapterRef, version);
    String currency =
        em.createQuery(
                "select p.currency from AdapterPrice p where p.adapterVersionId = :v order by"
                    + " p.effectiveFrom",
                String.class)
            .setParameter("v", v.id)
            .setMaxResults(1)
            .getSingleResult();
    Long clash =
        em.createQuery(
                "select count(p) from AdapterPrice p where p.adapterVersionId = :v and p.effectiveFrom"
                    + " = :t",
                Long.class)
            .setParameter("v", v.id)
            .setParameter("t", change.effectiveFrom())
            .getSingleResult();
    if (clash > 0) {
      throw ProblemTypes.conflict("a price already takes effect at " + change.effectiveFrom());
    }
    AppUser user = current.user();
    AdapterPrice p = new AdapterPrice();
    p.adapterVersionId = v.id;
    p.currency = currency;
    p.promptMicrosPer1kTokens = change.promptMicrosPer1kTokens();
    p.completionMicrosPer1kTokens = change.completionMicrosPer1kTokens();
    p.effectiveFrom = change.effectiveFrom();
    p.createdAt = now;
    p.createdBy = user.id;
    em.persist(p);
    audit.record(
        user,
        "price.schedule",
        "adapter-version",
        v.id.toString(),
        "{\"effective_from\":\"" + change.effectiveFrom() + "\"}");
    return change;
  }
}
