package io.tensafe.marketplace.dashboard;

import io.tensafe.marketplace.fleet.NodesConfig;
import io.tensafe.marketplace.gateway.GatewayMetrics;
import io.tensafe.marketplace.sql.Rows;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /api/admin/overview?days=14}: the figures of the admin dashboard's overview, for
 * admins: node health, charged requests and tokens per second over the last 5 minutes, per-day
 * series of requests, tokens and revenue from the charge ledger for the last {@code days} UTC days
 * (1 to 90, today included), and this instance's gateway meters.
 */
@Path("/api/admin/overview")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminOverviewResource {
  @Inject NodesConfig nodeRules;
  static final Duration RATE_WINDOW = Duration.ofMinutes(5);

  @Inject EntityManager em;
  @Inject GatewayMetrics gateway;

  @Operation(summary = "Show the dashboard figures: nodes, adapters, usage, budgets and revenue")
  @GET
  @Transactional
  public AdminOverview overview(@QueryParam("days") @DefaultValue("14") @Min(1) @Max(90) int days) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    NodeCounts nodes =
        Rows.single(
            em.createNativeQuery(
                    "SELECT count(*) FILTER (WHERE suspended_at IS NULL AND endpoint IS NOT NULL"
                        + " AND last_heartbeat_at > :fresh), count(*) FROM node")
                .setParameter("fresh", now.minus(nodeRules.heartbeatTimeout())),
            NodeCounts.class);
    RecentCharges recent =
        Rows.single(
            em.createNativeQuery(
                    "SELECT count(*), coalesce(sum(prompt_tokens + completion_tokens), 0)"
                        + " FROM charge WHERE started_at > :since")
                .setParameter("since", now.minus(RATE_WINDOW)),
            RecentCharges.class);
    LocalDate first = now.toLocalDate().minusDays(days - 1L);
    List<AdminOverview.Day> series =
        Rows.list(
            em.createNativeQuery(
                    """
                SELECT (started_at AT TIME ZONE 'UTC')::date AS day, currency, count(*),
                       sum(prompt_tokens), sum(completion_tokens), sum(amount_micros),
                       sum(platform_micros)
                FROM charge WHERE started_at >= :from
                GROUP BY 1, 2 ORDER BY 1, 2
                """)
                .setParameter("from", first.atStartOfDay().atOffset(ZoneOffset.UTC)),
            AdminOverview.Day.class);
    double seconds = RATE_WINDOW.toSeconds();
    return new AdminOverview(
        nodes.serving(),
        nodes.all(),
        recent.requests() / seconds,
        recent.tokens() / seconds,
        List.copyOf(series),
        gateway.figures());
  }

  /** Nodes that could take a request now, and all nodes. */
  private record NodeCounts(long serving, long all) {}

  /** Charged requests and their tokens over the rate window. */
  private record RecentCharges(long requests, long tokens) {}
}
