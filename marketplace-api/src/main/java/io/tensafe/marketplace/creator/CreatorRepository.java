package io.tensafe.marketplace.creator;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link Creator} rows: at most one per organisation, created with its first signing key; a
 * {@code creatorRef} is unique and never changes hands.
 */
@ApplicationScoped
public class CreatorRepository implements PanacheRepositoryBase<Creator, UUID> {

  /** The organisation's creator, if it has registered a key yet. */
  public Optional<Creator> ofOrganisation(UUID organisationId) {
    return find("organisationId", organisationId).firstResultOptional();
  }

  /** Whether some creator already has this id. */
  public boolean refTaken(String creatorRef) {
    return count("creatorRef", creatorRef) > 0;
  }
}
