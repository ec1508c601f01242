package io.tensafe.marketplace.apikey;

import java.util.List;
import java.util.UUID;

/**
 * The verified API key of a request to the OpenAI-compatible API.
 *
 * @param adapterIds the adapters it may use; empty means every published adapter
 */
public record ApiKeyPrincipal(
    UUID keyId, String prefix, UUID organisationId, List<UUID> adapterIds) {
  public ApiKeyPrincipal {
    adapterIds = List.copyOf(adapterIds);
  }
}
