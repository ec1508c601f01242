package io.tensafe.marketplace.privacy;

import io.tensafe.marketplace.validation.OrganisationSlug;
import io.tensafe.marketplace.validation.PublicId;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * An admin's top-up of a client organisation's privacy budget for an adapter, in the period in
 * force now.
 *
 * @param organisation the client organisation's slug
 * @param adapter the adapter's public id (its newest published version's policy applies)
 * @param epsilon how much to raise the period's ε by, in (0, 100]
 * @param reference the admin's idempotency reference (a ticket id, say): a retry with the same
 *     reference tops up once
 */
public record TopUpRequest(
    @NotNull @OrganisationSlug String organisation,
    @NotNull @PublicId String adapter,
    @NotNull @DecimalMin(value = "0", inclusive = false) @DecimalMax("100") Double epsilon,
    @NotNull @Pattern(regexp = "[A-Za-z0-9._:-]{1,100}") String reference) {}
