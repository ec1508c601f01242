package io.tensafe.marketplace.limits;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

/**
 * Writes every organisation's limits ({@code tensafe.limits.organisation-requests-per-minute} and
 * {@code organisation-max-in-flight}) into the database's one-row {@code organisation_limit_rule}
 * at start, where the admission's call reads them ({@code admit}, {@code take_key_lease}, ADR
 * 0038). Replicas are expected to share these settings; if they differ, the last to start wins for
 * all.
 */
@ApplicationScoped
public class OrganisationLimitRule {
  @Inject LimitsConfig limits;
  @Inject EntityManager em;

  @Transactional
  void write(@Observes StartupEvent start) {
    if (limits.organisationRequestsPerMinute() < 1 || limits.organisationMaxInFlight() < 1) {
      throw new IllegalStateException(
          "tensafe.limits.organisation-requests-per-minute and organisation-max-in-flight must"
              + " be at least 1");
    }
    em.createNativeQuery(
            "UPDATE organisation_limit_rule SET requests_per_minute = :r, max_in_flight = :m")
        .setParameter("r", limits.organisationRequestsPerMinute())
        .setParameter("m", limits.organisationMaxInFlight())
        .executeUpdate();
  }
}
