package io.tensafe.marketplace.fleet;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/** A heartbeat: the node's name and, optionally, the adapters it now has loaded. */
public record NodeHeartbeat(
    @NotNull @Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}") String name,
    @Size(max = 1024) List<@Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}") String> loadedAdapters) {}
