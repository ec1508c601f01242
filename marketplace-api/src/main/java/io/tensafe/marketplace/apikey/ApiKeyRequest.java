package io.tensafe.marketplace.apikey;

import io.tensafe.marketplace.validation.OrganisationSlug;
import io.tensafe.marketplace.validation.PublicId;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * A new key: a name for humans and, optionally, the adapter ids it may use.
 *
 * @param adapters null or empty for every published adapter
 * @param organisation the slug of an organisation the caller belongs to; null for their personal
 *     organisation
 * @param maxPrice the most the key pays per 1,000 tokens; null for no cap
 */
public record ApiKeyRequest(
    @NotBlank @Size(max = 200) String name,
    @Size(max = 100) List<@PublicId String> adapters,
    @OrganisationSlug String organisation,
    @jakarta.validation.Valid PriceCap maxPrice) {}
