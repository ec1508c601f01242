package io.tensafe.marketplace.fleet;

import java.net.URI;
import java.util.UUID;

/**
 * A healthy node that can take a request now.
 *
 * @param id the node's id
 * @param name its registered name
 * @param endpoint where it accepts generation requests
 * @param hasAdapter whether its last heartbeat said it holds the adapter
 */
public record NodeTarget(UUID id, String name, URI endpoint, boolean hasAdapter) {}
