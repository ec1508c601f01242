package io.tensafe.marketplace.organisation;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.AppUserRepository;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.identity.Organisation;
import io.tensafe.marketplace.identity.OrganisationRepository;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Organisations and their members. A person sees only organisations they belong to: any other slug,
 * existing or not, is "not found". Only owners add members. Organisations and users are entities
 * ({@link OrganisationRepository}, {@link AppUserRepository}); memberships (table {@code
 * organisation_member}) have none and are SQL, every read of them a join onto a view.
 */
@ApplicationScoped
public class OrganisationService {
  @Inject EntityManager em;
  @Inject OrganisationRepository organisations;
  @Inject AppUserRepository users;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  /** An organisation the caller belongs to, with the caller's role. */
  public record Membership(UUID organisationId, String slug, String role) {}

  @Transactional
  public MembershipView create(NewOrganisation request) {
    AppUser user = current.user();
    if (request.slug().startsWith("org-")) {
      throw ProblemTypes.validation("slugs starting with 'org-' are reserved");
    }
    if (organisations.slugTaken(request.slug())) {
      throw ProblemTypes.conflict("organisation slug '" + request.slug() + "' is taken");
    }
    Organisation organisation = new Organisation();
    organisation.id = UUID.randomUUID();
    organisation.slug = request.slug();
    organisation.displayName = request.displayName().strip();
    organisation.createdAt = OffsetDateTime.now();
    organisations.persist(organisation);
    // The membership row refers to it; it must be in the database before that INSERT.
    organisations.flush();
    addMembership(organisation.id, user.id, "owner", user.id);
    audit.record(user, "organisation.create", "organisation", request.slug(), "{}");
    return new MembershipView(request.slug(), request.displayName().strip(), "owner", false);
  }

  /** Every organisation the caller belongs to, personal one first. */
  public List<MembershipView> mine() {
    AppUser user = current.user();
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT o.slug, o.display_name, m.role, o.id = :personal
                FROM organisation_member m JOIN organisation o ON o.id = m.organisation_id
                WHERE m.user_id = :u
                ORDER BY o.id = :personal DESC, o.slug
                """)
            .setParameter("u", user.id)
            .setParameter("personal", user.organisationId),
        MembershipView.class);
  }

  /**
   * The caller's membership of {@code slug}, or of their personal organisation when {@code slug} is
   * null.
   *
   * @throws ApiProblem not-found when the caller does not belong to it (or it does not exist)
   */
  public Membership require(String slug) {
    AppUser user = current.user();
    return Rows.first(
            em.createNativeQuery(
                    """
                SELECT o.id, o.slug, m.role
                FROM organisation_member m JOIN organisation o ON o.id = m.organisation_id
                WHERE m.user_id = :u AND (CASE WHEN :slug = '' THEN o.id = :personal ELSE o.slug = :slug END)
                """)
                .setParameter("u", user.id)
                .setParameter("slug", slug == null ? "" : slug)
                .setParameter("personal", user.organisationId),
            Membership.class)
        .orElseThrow(() -> ProblemTypes.notFound("organisation " + slug));
  }

  /** Ids of every organisation the caller belongs to. */
  public List<UUID> memberOf() {
    AppUser user = current.user();
    List<UUID> ids = new ArrayList<>();
    for (Object o :
        em.createNativeQuery("SELECT organisation_id FROM organisation_member WHERE user_id = :u")
            .setParameter("u", user.id)
            .getResultList()) {
      ids.add((UUID) o);
    }
    return ids;
  }

  @Transactional
  public MemberView addMember(String slug, NewMember request) {
    AppUser user = current.user();
    Membership membership = require(slug);
    if (!membership.role().equals("owner")) {
      throw new ApiProblem(ProblemKind.FORBIDDEN, "only an owner of " + slug + " adds members");
    }
    List<AppUser> named = users.byUsername(request.username());
    if (named.isEmpty()) {
      throw ProblemTypes.notFound("user " + request.username());
    }
    if (named.size() > 1) {
      throw ProblemTypes.conflict("username " + request.username() + " is ambiguous");
    }
    UUID member = named.getFirst().id;
    boolean already =
        !em.createNativeQuery(
                "SELECT 1 FROM organisation_member WHERE organisation_id = :o AND user_id = :u")
            .setParameter("o", membership.organisationId())
            .setParameter("u", member)
            .getResultList()
            .isEmpty();
    if (already) {
      throw ProblemTypes.conflict(request.username() + " already belongs to " + slug);
    }
    String role = request.role() == null ? "member" : request.role();
    addMembership(membership.organisationId(), member, role, user.id);
    audit.record(
        user,
        "organisation.add-member",
        "organisation",
        slug,
        "{\"username\":\""
            + request.username().replace("\\", "\\\\").replace("\"", "\\\"")
            + "\"}");
    return new MemberView(request.username(), role, OffsetDateTime.now());
  }

  public List<MemberView> members(String slug) {
    Membership membership = require(slug);
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT u.username, m.role, m.added_at
                FROM organisation_member m JOIN app_user u ON u.id = m.user_id
                WHERE m.organisation_id = :o ORDER BY u.username
                """)
            .setParameter("o", membership.organisationId()),
        MemberView.class);
  }

  private void addMembership(UUID organisation, UUID user, String role, UUID by) {
    em.createNativeQuery(
            "INSERT INTO organisation_member (organisation_id, user_id, role, added_by)"
                + " VALUES (:o, :u, :r, :b)")
        .setParameter("o", organisation)
        .setParameter("u", user)
        .setParameter("r", role)
        .setParameter("b", by)
        .executeUpdate();
  }
}
