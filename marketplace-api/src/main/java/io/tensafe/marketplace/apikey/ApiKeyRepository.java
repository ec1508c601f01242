package io.tensafe.marketplace.apikey;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link ApiKey} rows, as their owners and admins manage them. The gateway does not read keys
 * here: {@link ApiKeyVerifier} checks a presented key in one autocommit statement (ADR 0022).
 */
@ApplicationScoped
public class ApiKeyRepository implements PanacheRepositoryBase<ApiKey, UUID> {

  /** A key with its organisation's slug. */
  public record KeyOfOrganisation(ApiKey key, String organisation) {}

  /** The keys of one organisation, oldest first. */
  public List<ApiKey> ofOrganisation(UUID organisationId) {
    return list("organisationId", Sort.by("createdAt"), organisationId);
  }

  /** Every tenant's keys, newest first, each with its organisation's slug. */
  public List<KeyOfOrganisation> allWithOrganisation() {
    return getEntityManager()
        .createQuery(
            "select new io.tensafe.marketplace.apikey.ApiKeyRepository$KeyOfOrganisation(k, o.slug)"
                + " from ApiKey k, Organisation o where o.id = k.organisationId"
                + " order by k.createdAt desc",
            KeyOfOrganisation.class)
        .getResultList();
  }

  /**
   * The key with this prefix if it belongs to one of {@code organisationIds}; empty for anyone
   * else's key, so another tenant's keys cannot be told from keys that do not exist.
   */
  public Optional<ApiKey> byPrefixIn(String prefix, Collection<UUID> organisationIds) {
    return find("prefix = ?1 and organisationId in ?2", prefix, organisationIds)
        .firstResultOptional();
  }
}
