package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.validation.PublicId;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;

/** A heartbeat: the node's name and, optionally, the adapters it now has loaded. */
public record NodeHeartbeat(
    @NotNull @PublicId String name, @Size(max = 1024) List<@PublicId String> loadedAdapters) {}
