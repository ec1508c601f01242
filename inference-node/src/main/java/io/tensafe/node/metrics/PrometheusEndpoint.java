package io.tensafe.node.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * Prometheus text exposition at {@code /metrics}. As in the marketplace, the node registers
 * Micrometer's Prometheus registry itself (the Quarkus extension for it does not resolve here);
 * quarkus-micrometer adds it to the global registry with the JVM and HTTP meters.
 */
@Path("/metrics")
public class PrometheusEndpoint {
  @Inject PrometheusMeterRegistry registry;

  @Produces
  @Singleton
  static PrometheusMeterRegistry prometheusRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  @GET
  @jakarta.ws.rs.Produces("text/plain; version=0.0.4; charset=utf-8")
  public String scrape() {
    return registry.scrape();
  }
}
