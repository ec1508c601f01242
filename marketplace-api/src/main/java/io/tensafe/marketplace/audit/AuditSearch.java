package io.tensafe.marketplace.audit;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;

/** Reads the audit log, newest first, optionally filtered by a case-insensitive text. */
@ApplicationScoped
public class AuditSearch {
  @Inject EntityManager em;

  /**
   * One audit row as admins see it.
   *
   * @param actor the acting person's user name, or their OIDC subject when unknown
   * @param details the JSON object of what changed (never secrets)
   */
  public record Row(
      long id,
      OffsetDateTime at,
      String actor,
      String action,
      String targetType,
      String targetId,
      String details) {}

  /**
   * @param text matched against actor, action, target and details; null or blank matches all
   * @param page zero-based; {@code size} rows per page (1..200)
   */
  @Transactional
  public Page<Row> search(String text, int page, int size) {
    boolean filtered = text != null && !text.isBlank();
    String where =
        " FROM audit_log l LEFT JOIN app_user u ON u.id = l.actor_user_id"
            + (filtered
                ? " WHERE concat_ws(' ', u.username, l.actor_subject, l.action, l.target_type,"
                    + " l.target_id, l.details::text) ILIKE :like"
                : "");
    var count = em.createNativeQuery("SELECT count(*)" + where);
    var select =
        em.createNativeQuery(
            "SELECT l.id, l.at, coalesce(u.username, l.actor_subject), l.action, l.target_type,"
                + " l.target_id, l.details::text"
                + where
                + " ORDER BY l.id DESC LIMIT :limit OFFSET :offset");
    if (filtered) {
      String like = "%" + escapeLike(text.strip()) + "%";
      count.setParameter("like", like);
      select.setParameter("like", like);
    }
    long total = ((Number) count.getSingleResult()).longValue();
    List<Row> rows =
        Rows.list(
            select.setParameter("limit", size).setParameter("offset", (long) page * size),
            Row.class);
    return new Page<>(List.copyOf(rows), page, size, total);
  }

  private static String escapeLike(String text) {
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }
}
