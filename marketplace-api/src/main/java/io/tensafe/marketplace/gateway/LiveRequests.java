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
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The requests this replica serves now, of both modes (hosted relays and private sessions), and the
 * replica's name ({@code tensafe.gateway.replica}, else host:port) under which they are recorded.
 * At every sweep ({@link RequestSweeper}) each ends itself if it went idle ({@link
 * Live#endIfIdle}), then the rest are vouched for in the database in one statement, so that no
 * replica takes a live request for one whose replica died, however slowly its node or client goes;
 * one that another replica ended meanwhile (and billed) is let go here without a second bill
 * ({@link Live#endedElsewhere}). At start the replica marks every request of either mode recorded
 * under its name and still open as no longer vouched for: a process that has just started serves
 * none of them (its previous life died), so a node's report or the next sweep ends them as {@code
 * gateway_lost} at once. Thread-safe.
 */
@ApplicationScoped
public class LiveRequests {
  /**
   * What the sweep asks of a request this replica serves. Implementations are thread-safe: the
   * sweep calls them from its own thread while the request's thread serves it.
   */
  public interface Live {
    /** A hosted relay: its node's idleness is its call's watchdog's, and it ends on its thread. */
    Live HOSTED = new Live() {};

    /**
     * Ends the request if it went idle, billed what it was served; true when it did (and it is no
     * longer live).
     */
    default boolean endIfIdle() {
      return false;
    }

    /**
     * Another replica ended (and billed) the request: lets it go here, billing nothing; true when
     * it did (and it is no longer live), false to be asked again at the next sweep. A hosted relay
     * stays: its own end finds the request ended and bills nothing more.
     */
    default boolean endedElsewhere() {
      return false;
    }
  }

  /** What one liveness step did: requests ended as idle, and let go as ended elsewhere. */
  public record Swept(int idle, int endedElsewhere) {}

  @Inject GatewayConfig gateway;
  @Inject GatewayRequests requests;
  @Inject EntityManager em;

  private final Map<UUID, Live> live = new ConcurrentHashMap<>();
  private volatile String replica;

  void started(@Observes StartupEvent event) {
    String name = replica();
    int lost =
        QuarkusTransaction.requiringNew()
            .call(
                () ->
                    em.createNativeQuery(
                            "UPDATE gateway_request SET active_at = '-infinity'"
                                + " WHERE replica = :replica AND ended_at IS NULL")
                        .setParameter("replica", name)
                        .executeUpdate());
    if (lost > 0) {
      Log.warnf(
          "replica %s started again with %d request(s) of its previous life open; they end as"
              + " gateway_lost",
          name, lost);
    }
  }

  /** This replica's name; 1..200 characters. */
  String replica() {
    String r = replica;
    if (r == null) {
      r = gateway.replica().orElseGet(LiveRequests::hostAndPort);
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

  /** {@code requestId} is served here from now on, until {@link #remove}. */
  public void add(String requestId, Live request) {
    live.put(UUID.fromString(requestId), request);
  }

  /** {@code requestId} is no longer served here. */
  public void remove(String requestId) {
    live.remove(UUID.fromString(requestId));
  }

  /** The requests served now. */
  Set<UUID> ids() {
    return Set.copyOf(live.keySet());
  }

  /**
   * One sweep's liveness step: vouches for every request served here in one statement (first, so
   * that nothing slow below can let another replica take them for lost), lets go of those another
   * replica ended, then ends the idle ones. A request whose step fails is asked again at the next
   * sweep; the others go on.
   */
  Swept sweep() {
    Set<UUID> ids = ids();
    Set<UUID> open = QuarkusTransaction.requiringNew().call(() -> requests.vouch(ids));
    int elsewhere = 0;
    for (UUID id : ids) {
      Live r = live.get(id);
      if (!open.contains(id) && r != null && asked(id, r::endedElsewhere)) {
        live.remove(id, r);
        elsewhere++;
      }
    }
    int idle = 0;
    for (Map.Entry<UUID, Live> e : live.entrySet()) {
      if (asked(e.getKey(), e.getValue()::endIfIdle)) {
        live.remove(e.getKey(), e.getValue());
        idle++;
      }
    }
    return new Swept(idle, elsewhere);
  }

  /** {@code question}'s answer for request {@code id}; false (ask again later) when it failed. */
  private static boolean asked(UUID id, java.util.function.BooleanSupplier question) {
    try {
      return question.getAsBoolean();
    } catch (RuntimeException e) {
      Log.warnf("request %s: its liveness step failed, will retry: %s", id, e.toString());
      return false;
    }
  }
}
