package io.tensafe.marketplace.autocap;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.apikey.PriceCap;
import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.organisation.OrganisationService;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each organisation's ceiling for {@code auto} (issue 35): the step-gate never routes its requests
 * to a version priced above it, in either figure, or in another currency; a model named by the
 * client is not bound by it (the key's own cap still is). An organisation has the platform's
 * default ({@link AutoCapConfig}) until one of its owners sets its own (table {@code
 * organisation_auto_cap}, audited). Read on the request path from a per-replica copy kept for
 * {@link AutoCapConfig#rereadAfter} (no database call per request); a change applies at once on the
 * replica that made it. Thread-safe.
 */
@ApplicationScoped
public class AutoPriceCaps {
  @Inject EntityManager em;
  @Inject AutoCapConfig config;
  @Inject OrganisationService organisations;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  private record Remembered(AutoCapView view, long readAtNanos) {}

  private final Map<UUID, Remembered> remembered = new ConcurrentHashMap<>();

  /** The platform's default ceiling. */
  public PriceCap platformDefault() {
    return new PriceCap(
        config.currency(), config.promptMicrosPer1kTokens(), config.completionMicrosPer1kTokens());
  }

  /** The ceiling {@code auto} routes {@code organisation}'s requests within, now. */
  public AutoCapView of(UUID organisation) {
    Remembered r = remembered.get(organisation);
    long now = System.nanoTime();
    if (r != null && now - r.readAtNanos() < config.rereadAfter().toNanos()) {
      return r.view();
    }
    AutoCapView read = QuarkusTransaction.joiningExisting().call(() -> read(organisation));
    remembered.put(organisation, new Remembered(read, now));
    return read;
  }

  private record Row(
      String currency, long promptMicros, long completionMicros, OffsetDateTime setAt) {}

  private AutoCapView read(UUID organisation) {
    return Rows.first(
            em.createNativeQuery(
                    "SELECT currency, prompt_micros_per_1k_tokens,"
                        + " completion_micros_per_1k_tokens, set_at FROM organisation_auto_cap"
                        + " WHERE organisation_id = :o")
                .setParameter("o", organisation),
            Row.class)
        .map(
            r ->
                new AutoCapView(
                    new PriceCap(r.currency().trim(), r.promptMicros(), r.completionMicros()),
                    "organisation",
                    r.setAt()))
        .orElseGet(() -> new AutoCapView(platformDefault(), "platform", null));
  }

  /** The ceiling of organisation {@code slug} (admins' pages); the platform's default if none. */
  @Transactional
  public AutoCapView bySlug(String slug) {
    List<?> ids =
        em.createNativeQuery("SELECT id FROM organisation WHERE slug = :s")
            .setParameter("s", slug)
            .getResultList();
    return ids.isEmpty()
        ? new AutoCapView(platformDefault(), "platform", null)
        : of((UUID) ids.getFirst());
  }

  /** The ceiling of {@code slug}, an organisation the caller belongs to. */
  public AutoCapView ofMine(String slug) {
    return of(organisations.require(slug).organisationId());
  }

  /**
   * Sets {@code slug}'s ceiling; only an owner of it may.
   *
   * @throws ApiProblem not-found when the caller does not belong to it, forbidden when not an owner
   */
  @Transactional
  public AutoCapView set(String slug, PriceCap cap) {
    OrganisationService.Membership m = organisations.require(slug);
    if (!m.role().equals("owner")) {
      throw new ApiProblem(
          ProblemKind.FORBIDDEN, "only an owner of " + m.slug() + " sets its auto price cap");
    }
    var user = current.user();
    em.createNativeQuery(
            """
            INSERT INTO organisation_auto_cap (organisation_id, currency,
              prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens, set_by, set_at)
            VALUES (:o, :c, :p, :q, :u, now())
            ON CONFLICT (organisation_id) DO UPDATE SET currency = excluded.currency,
              prompt_micros_per_1k_tokens = excluded.prompt_micros_per_1k_tokens,
              completion_micros_per_1k_tokens = excluded.completion_micros_per_1k_tokens,
              set_by = excluded.set_by, set_at = excluded.set_at
            """)
        .setParameter("o", m.organisationId())
        .setParameter("c", cap.currency())
        .setParameter("p", cap.promptMicrosPer1kTokens())
        .setParameter("q", cap.completionMicrosPer1kTokens())
        .setParameter("u", user.id)
        .executeUpdate();
    audit.record(
        user,
        "organisation.auto-cap",
        "organisation",
        m.slug(),
        "{\"currency\":\""
            + cap.currency()
            + "\",\"prompt_micros_per_1k_tokens\":"
            + cap.promptMicrosPer1kTokens()
            + ",\"completion_micros_per_1k_tokens\":"
            + cap.completionMicrosPer1kTokens()
            + "}");
    AutoCapView view = read(m.organisationId());
    remembered.put(m.organisationId(), new Remembered(view, System.nanoTime()));
    return view;
  }
}
