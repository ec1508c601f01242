package io.tensafe.marketplace.apikey;

import java.util.List;
import java.util.UUID;

/**
 * The verified API key of a request to the OpenAI-compatible API.
 *
 * @param adapterIds the adapters it may use; empty means every published adapter
 * @param maxPrice the most it pays per 1,000 tokens, or null for no cap
 */
public record ApiKeyPrincipal(
    UUID keyId, String prefix, UUID organisationId, List<UUID> adapterIds, PriceCap maxPrice) {
  public ApiKeyPrincipal {
    adapterIds = List.copyOf(adapterIds);
  }
}
