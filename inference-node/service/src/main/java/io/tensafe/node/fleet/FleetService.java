package io.tensafe.node.fleet;

import io.quarkus.logging.Log;
import io.quarkus.runtime.Startup;
import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.node.config.FleetKeyFile;
import io.tensafe.node.config.NodeConfig;
import io.tensafe.node.generation.ModelService;
import io.tensafe.node.marketplace.DispatchToken;
import io.tensafe.node.marketplace.MarketplaceConnection;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;

/**
 * Registers a connected node with the marketplace at startup and heartbeats every {@code
 * tensafe.node.heartbeat-period}, reporting the adapter ids it holds. The registration carries the
 * node's {@link DispatchToken}, which the marketplace presents on every request it dispatches, and
 * a proof that the node holds its fleet's private key ({@link FleetProver}).
 */
@Startup
@ApplicationScoped
public class FleetService {
  @Inject NodeConfig config;
  @Inject MarketplaceConnection marketplace;
  @Inject ModelService model;
  @Inject HeBackend backend;
  @Inject DispatchToken dispatchToken;

  private FleetLink link;

  @PostConstruct
  void start() {
    if (marketplace.client().isEmpty()) {
      return;
    }
    String fleet =
        config
            .fleetId()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "a node connected to a marketplace needs tensafe.node.fleet-id"));
    String accelerator = backend.getClass().getSimpleName().startsWith("Cuda") ? "gpu" : "cpu";
    Map<String, Object> registration =
        new java.util.HashMap<>(
            Map.of(
                "fleetId",
                fleet,
                "name",
                config.name(),
                "baseModels",
                List.of(config.baseModel().orElse(model.modelName())),
                "accelerator",
                accelerator,
                "maxConcurrency",
                config.maxConcurrency(),
                "url",
                config.publicUrl(),
                "dispatchToken",
                dispatchToken.value()));
    model
        .modelShape()
        .ifPresent(
            shape -> {
              Map<String, Object> reported = new java.util.HashMap<>();
              reported.put("hiddenSize", shape.hiddenSize());
              reported.put("intermediateSize", shape.intermediateSize());
              reported.put("layers", shape.layers());
              reported.put("attentionHeads", shape.attentionHeads());
              reported.put("keyValueHeads", shape.keyValueHeads());
              reported.put("headDim", shape.headDim());
              shape
                  .moe()
                  .ifPresent(
                      e ->
                          reported.put(
                              "experts",
                              Map.of(
                                  "experts", e.experts(),
                                  "expertsPerToken", e.expertsPerToken(),
                                  "intermediateSize", e.intermediateSize(),
                                  "sparseStep", e.sparseStep(),
                                  "mlpOnlyLayers", e.mlpOnlyLayers())));
              registration.put("modelShape", reported);
            });
    var client = marketplace.client().get();
    link =
        new FleetLink(
            client,
            registration,
            FleetProver.of(client, FleetKeyFile.read(config)),
            model::heldAdapterIds,
            config.heartbeatPeriod(),
            Log::info);
    link.start();
  }

  /** Whether the node is registered now (false for a standalone node). */
  public boolean registered() {
    return link != null && link.registered();
  }

  @PreDestroy
  void stop() {
    if (link != null) {
      link.close();
    }
  }
}
