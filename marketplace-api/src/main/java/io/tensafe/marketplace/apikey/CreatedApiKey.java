package io.tensafe.marketplace.apikey;

/**
 * The answer to creating a key: the only time {@code key} is ever shown. Store it now; it cannot be
 * recovered, only revoked and replaced.
 */
public record CreatedApiKey(String key, ApiKeyView details) {}
