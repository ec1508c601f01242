package io.tensafe.marketplace.gateway;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The hosted requests this replica is relaying now, and the replica's name ({@code
 * tensafe.gateway.replica}, else host:port) under which they are recorded. They are vouched for in
 * the database at every sweep ({@link UnreportedRequests}), so that no replica takes a live stream
 * for one whose gateway died, however slowly its node or client goes; and at start the replica
 * marks the requests recorded under its name that are still open as no longer vouched for: a
 * process that has just started relays none of them (its previous life died), so a node's report or
 * the next sweep ends them as {@code gateway_lost} at once. Thread-safe.
 */
@ApplicationScoped
public class LiveRelays {
  @Inject GatewayConfig gateway;
  @Inject EntityManager em;

  private final Set<UUID> ids = ConcurrentHashMap.newKeySet();
  private volatile String replica;

  void started(@Observes StartupEvent event) {
    String name = replica();
    int lost =
        QuarkusTransaction.requiringNew()
            .call(
                () ->
                    em.createNativeQuery(
                            "UPDATE gateway_request SET active_at = '-infinity'"
                                + " WHERE replica = :replica AND mode = 'hosted'"
                                + " AND ended_at IS NULL")
                        .setParameter("replica", name)
                        .executeUpdate());
    if (lost > 0) {
      Log.warnf(
          "replica %s started again with %d hosted request(s) of its previous life open; they"
              + " end as gateway_lost",
          name, lost);
    }
  }

  /** This replica's name; 1..200 characters. */
  String replica() {
    String r = replica;
    if (r == null) {
      r = gateway.replica().orElseGet(LiveRelays::hostAndPort);
      replica = r;
    }
    return r;
  }

  private static String hostAndPort() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    int port =
        ConfigProvider.getConfig()
            .getOptionalValue("quarkus.http.port", Integer.class)
            .orElse(8080);
    return host + ":" + port;
  }

  void add(String requestId) {
    ids.add(UUID.fromString(requestId));
  }

  void remove(String requestId) {
    ids.remove(UUID.fromString(requestId));
  }

  /** The requests relayed now. */
  Set<UUID> ids() {
    return Set.copyOf(ids);
  }
}
