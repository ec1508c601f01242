package io.tensafe.marketplace.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * Prometheus text exposition at {@code /metrics}. The Quarkus Prometheus registry extension does
 * not resolve from the Maven repository reachable here, so this service registers Micrometer's
 * Prometheus registry itself; quarkus-micrometer adds it to the global registry and feeds it the
 * HTTP server, JVM and connection-pool meters.
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

  @GET
  @PermitAll
  @jakarta.ws.rs.Produces("text/plain; version=0.0.4; charset=utf-8")
  public String scrape() {
    return registry.scrape();
  }
}
