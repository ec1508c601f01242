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
 * @param dispatchToken the secret to present to it
 * @param slot the lease on one of its concurrency slots that this target holds ({@link
 *     NodeDispatcher#release} gives it back)
 */
public record NodeTarget(
    UUID id, String name, URI endpoint, boolean hasAdapter, String dispatchToken, UUID slot) {
  @Override
  public String toString() {
    return "NodeTarget[" + name + " at " + endpoint + "]";
  }
}
