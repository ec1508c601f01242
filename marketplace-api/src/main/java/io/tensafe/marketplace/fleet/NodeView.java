package io.tensafe.marketplace.fleet;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * A node as admins see it; {@code healthy} is false once its heartbeats are older than the limit.
 */
public record NodeView(
    String id,
    String fleetId,
    String name,
    List<String> baseModels,
    String accelerator,
    String url,
    int maxConcurrency,
    List<String> loadedAdapters,
    OffsetDateTime lastHeartbeatAt,
    boolean healthy,
    boolean suspended) {}
