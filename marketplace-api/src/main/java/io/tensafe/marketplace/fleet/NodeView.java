package io.tensafe.marketplace.fleet;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * A node as admins see it; {@code healthy} is false once its heartbeats are older than the limit,
 * or from the moment the gateway fails to connect to it until it beats again.
 *
 * @param unreachable why the gateway's last connection to it failed; null while none has since its
 *     last heartbeat
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
    boolean suspended,
    String unreachable) {}
