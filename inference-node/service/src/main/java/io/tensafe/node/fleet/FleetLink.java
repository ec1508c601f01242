package io.tensafe.node.fleet;

import io.tensafe.node.health.Causes;
import io.tensafe.node.marketplace.MarketplaceClient;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps the node registered with the marketplace: registers (answering a fresh fleet challenge each
 * time), then heartbeats every {@code period} with the adapters it holds; registers again when the
 * marketplace forgot it (404), and keeps trying, logging each failure, while the marketplace cannot
 * be reached.
 */
public final class FleetLink implements AutoCloseable {
  private final MarketplaceClient marketplace;
  private final Map<String, Object> registration;
  private final FleetProver prover;
  private final Supplier<List<String>> loadedAdapters;
  private final Duration period;
  private final Consumer<String> log;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("fleet-link").daemon().unstarted(r));
  private volatile boolean registered;
  private volatile long heartbeats;

  /**
   * @param registration the marketplace's registration body: fleetId, name, baseModels,
   *     accelerator, maxConcurrency
   * @param prover answers a fresh fleet challenge before each registration
   */
  public FleetLink(
      MarketplaceClient marketplace,
      Map<String, Object> registration,
      FleetProver prover,
      Supplier<List<String>> loadedAdapters,
      Duration period,
      Consumer<String> log) {
    this.marketplace = marketplace;
    this.registration = Map.copyOf(registration);
    this.prover = prover;
    this.loadedAdapters = loadedAdapters;
    this.period = period;
    this.log = log;
  }

  public void start() {
    thread.scheduleWithFixedDelay(this::beat, 0, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether the last registration or heartbeat succeeded. */
  public boolean registered() {
    return registered;
  }

  /** Heartbeats acknowledged so far. */
  public long heartbeats() {
    return heartbeats;
  }

  void beat() {
    String name = (String) registration.get("name");
    try {
      if (registered && marketplace.heartbeat(name, loadedAdapters.get())) {
        heartbeats++;
        return;
      }
      java.util.HashMap<String, Object> body = new java.util.HashMap<>(registration);
      body.put("loadedAdapters", loadedAdapters.get());
      body.put("fleetProof", prover.prove(name));
      marketplace.register(body);
      if (!registered) {
        log.accept("registered with " + marketplace.base() + " as " + name);
      }
      registered = true;
    } catch (IOException | RuntimeException e) {
      if (registered) {
        log.accept("lost the marketplace: " + Causes.describe(e));
      } else {
        log.accept("cannot register with the marketplace yet: " + Causes.describe(e));
      }
      registered = false;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
