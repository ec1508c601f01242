package io.tensafe.marketplace.identity;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link AppUser} rows (table {@code app_user}). Rows are created only by {@link CurrentUser}
 * on a subject's first contact; suspensions are set by {@code admin.SuspensionService}, in SQL.
 */
@ApplicationScoped
public class AppUserRepository implements PanacheRepositoryBase<AppUser, UUID> {

  /** The user of this OIDC subject, if known (the column is unique). */
  public Optional<AppUser> bySubject(String oidcSubject) {
    return find("oidcSubject", oidcSubject).firstResultOptional();
  }

  /**
   * Every user with this user name: user names come from the identity provider and are not unique
   * here, so a caller that needs one person must refuse more than one.
   */
  public List<AppUser> byUsername(String username) {
    return list("username", username);
  }
}
