package io.tensafe.marketplace.fleet;

import io.smallrye.health.api.Wellness;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * "Inference nodes": down (degraded) while some fleet that serves a published adapter has no node
 * that can take a request: none with a fresh heartbeat, not suspended, and not marked unreachable
 * by a failed connection. A wellness check, so it shows in {@code /q/health} and on the landing
 * page but never takes a marketplace replica out of its load balancer ({@code /q/health/ready}) or
 * restarts it ({@code /q/health/live}): the API still answers, with 503 problems, while the fleet
 * is away.
 *
 * <p>Data: {@code degradedFleets} (count), then up to {@value #LISTED} fleet ids, each with why.
 */
@Wellness
@ApplicationScoped
public class NodeAvailabilityCheck implements HealthCheck {
  @Inject NodesConfig nodeRules;
  static final String NAME = "Inference nodes";
  static final int LISTED = 20;

  @Inject EntityManager em;

  /** A fleet no node can serve now: its unsuspended nodes, and those with a fresh heartbeat. */
  private record DegradedFleet(String fleetRef, long activeNodes, long freshNodes) {}

  @Override
  @Transactional
  public HealthCheckResponse call() {
    List<DegradedFleet> rows =
        Rows.list(
            em.createNativeQuery(
                    """
                SELECT f.fleet_ref,
                       count(n.id) FILTER (WHERE n.suspended_at IS NULL),
                       count(n.id) FILTER (WHERE n.suspended_at IS NULL
                                             AND n.last_heartbeat_at > :fresh)
                FROM node_fleet f LEFT JOIN usable_node n ON n.fleet_id = f.id
                WHERE EXISTS (SELECT 1 FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                              WHERE v.fleet_id = f.id AND v.state = 'published'
                                AND a.suspended_at IS NULL)
                GROUP BY f.fleet_ref
                HAVING count(n.id) FILTER (WHERE n.suspended_at IS NULL
                                             AND n.last_heartbeat_at > :fresh
                                             AND n.unreachable_since IS NULL) = 0
                ORDER BY f.fleet_ref
                """)
                .setParameter("fresh", OffsetDateTime.now().minus(nodeRules.heartbeatTimeout())),
            DegradedFleet.class);
    HealthCheckResponseBuilder check =
        HealthCheckResponse.named(NAME)
            .status(rows.isEmpty())
            .withData("degradedFleets", rows.size());
    for (DegradedFleet r : rows.subList(0, Math.min(LISTED, rows.size()))) {
      long nodes = r.activeNodes();
      long fresh = r.freshNodes();
      check.withData(
          r.fleetRef(),
          nodes == 0
              ? "no node has registered"
              : fresh == 0
                  ? "no heartbeat from its "
                      + nodes
                      + " node(s) within "
                      + nodeRules.heartbeatTimeout().toSeconds()
                      + " s"
                  : "its node(s) failed the last connection; waiting for a heartbeat");
    }
    return check.build();
  }
}
