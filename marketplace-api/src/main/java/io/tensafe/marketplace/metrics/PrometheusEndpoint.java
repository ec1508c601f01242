package io.tensafe.marketplace.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemMappers;
import io.vertx.core.http.HttpServerRequest;
import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;

/**
 * Prometheus text exposition at {@code /metrics}, for the holder of the scrape token, or loopback
 * callers outside the production profile ({@link ScrapeAccess}). The Quarkus Prometheus registry
 * extension does not resolve from the Maven repository reachable here, so this service registers
 * Micrometer's Prometheus registry itself; quarkus-micrometer adds it to the global registry and
 * feeds it the HTTP server, JVM and connection-pool meters.
 */
@Path("/metrics")
public class PrometheusEndpoint {
  @Inject PrometheusMeterRegistry registry;

  /** The registry; one per application. */
  @Produces
  @Singleton
  static PrometheusMeterRegistry prometheusRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  @Inject MetricsConfig config;

  /** The exposition, for a caller {@link ScrapeAccess} allows; else 401 problem+json. */
  @GET
  @PermitAll
  @jakarta.ws.rs.Produces("text/plain; version=0.0.4; charset=utf-8")
  public Response scrape(
      @Context HttpServerRequest request, @HeaderParam("Authorization") String authorization) {
    String host = request.remoteAddress() == null ? null : request.remoteAddress().host();
    if (!new ScrapeAccess(config.token(), config.trustLoopback()).allows(host, authorization)) {
      return ProblemMappers.problem(
              ProblemKind.UNAUTHORIZED,
              config.trustLoopback()
                  ? "metrics are for the loopback interface, or for whoever presents the scrape"
                      + " token as 'Authorization: Bearer ...'"
                  : "metrics are for whoever presents the scrape token as 'Authorization: Bearer"
                      + " ...' (TENSAFE_METRICS_TOKEN)")
          .build();
    }
    return Response.ok(registry.scrape()).build();
  }
}
