package io.tensafe.marketplace.identity;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;

/**
 * The {@link Organisation} rows (tenants). Memberships (table {@code organisation_member}, no
 * entity) are read and written in SQL by {@code organisation.OrganisationService}, since every read
 * of them is a join projected onto a view.
 */
@ApplicationScoped
public class OrganisationRepository implements PanacheRepositoryBase<Organisation, UUID> {

  /** Whether an organisation already has this slug (the column is unique). */
  public boolean slugTaken(String slug) {
    return count("slug", slug) > 0;
  }
}
