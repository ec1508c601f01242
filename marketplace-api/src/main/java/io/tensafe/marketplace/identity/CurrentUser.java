package io.tensafe.marketplace.identity;

import io.quarkus.security.identity.SecurityIdentity;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The authenticated person of this request, provisioned on first contact: a new subject gets its
 * own organisation (its tenant) and a user row. Identity comes only from the verified token.
 */
@RequestScoped
public class CurrentUser {
  @Inject SecurityIdentity identity;
  @Inject JsonWebToken token;
  @Inject EntityManager em;
  @Inject AppUserRepository users;
  @Inject OrganisationRepository organisations;

  private AppUser user;

  public boolean hasRole(String role) {
    return identity.hasRole(role);
  }

  /**
   * The user row for the token's subject, created if new with its personal organisation, which it
   * owns.
   */
  @Transactional
  public AppUser user() {
    if (user != null) {
      return user;
    }
    String subject = token.getSubject();
    user = users.bySubject(subject).orElseGet(() -> provision(subject));
    if (user.suspendedAt != null) {
      throw new ApiProblem(ProblemKind.FORBIDDEN, "this account is suspended");
    }
    return user;
  }

  private AppUser provision(String subject) {
    String username =
        token.<String>claim("preferred_username").orElse(identity.getPrincipal().getName());
    Organisation org = new Organisation();
    org.id = UUID.randomUUID();
    org.slug = "org-" + org.id.toString().substring(0, 12).toLowerCase(Locale.ROOT);
    org.displayName = username;
    org.createdAt = OffsetDateTime.now();
    organisations.persist(org);
    AppUser u = new AppUser();
    u.id = UUID.randomUUID();
    u.oidcSubject = subject;
    u.organisationId = org.id;
    u.username = username;
    u.email = token.<String>claim("email").orElse(null);
    u.createdAt = OffsetDateTime.now();
    users.persist(u);
    // The membership row refers to both; they must be in the database before its INSERT.
    users.flush();
    em.createNativeQuery(
            "INSERT INTO organisation_member (organisation_id, user_id, role) VALUES (:o, :u, 'owner')")
        .setParameter("o", org.id)
        .setParameter("u", u.id)
        .executeUpdate();
    return u;
  }
}
