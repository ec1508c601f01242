package io.tensafe.node.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tensafe.node.config.NodeConfig;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;

/**
 * Prometheus text exposition at {@code /metrics}, for loopback callers or the holder of the scrape
 * token ({@link ScrapeAccess}). As in the marketplace, the node registers Micrometer's Prometheus
 * registry itself (the Quarkus extension for it does not resolve here); quarkus-micrometer adds it
 * to the global registry with the JVM and HTTP meters.
 */
@Path("/metrics")
public class PrometheusEndpoint {
  @Inject NodeConfig config;
  @Inject PrometheusMeterRegistry registry;

  @Produces
  @Singleton
  static PrometheusMeterRegistry prometheusRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /** The exposition, for a caller {@link ScrapeAccess} allows; else 401 problem+json. */
  @GET
  @jakarta.ws.rs.Produces("text/plain; version=0.0.4; charset=utf-8")
  public Response scrape(
      @Context HttpServerRequest request, @HeaderParam("Authorization") String authorization) {
    String host = request.remoteAddress() == null ? null : request.remoteAddress().host();
    if (!new ScrapeAccess(config.metricsToken(), config.metricsTrustLoopback())
        .allows(host, authorization)) {
      return Response.status(401)
          .type("application/problem+json")
          .entity(
              java.util.Map.of(
                  "type",
                  "https://tensafe.io/node/problems/unauthorized",
                  "title",
                  "Unauthorized",
                  "status",
                  401,
                  "detail",
                  config.metricsTrustLoopback()
                      ? "metrics are for the loopback interface, or for whoever presents the"
                          + " scrape token as 'Authorization: Bearer ...'"
                      : "metrics are for whoever presents the scrape token as 'Authorization:"
                          + " Bearer ...' (TENSAFE_NODE_METRICS_TOKEN)"))
          .build();
    }
    return Response.ok(registry.scrape()).build();
  }
}
