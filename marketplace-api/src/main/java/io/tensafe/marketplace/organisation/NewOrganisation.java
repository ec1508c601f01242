package io.tensafe.marketplace.organisation;

import io.tensafe.marketplace.validation.OrganisationSlug;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/**
 * A new organisation.
 *
 * @param slug stable URL-safe id, 2 to 63 characters of [a-z0-9-], starting with a letter or digit;
 *     slugs starting with "org-" are reserved for personal organisations
 * @param displayName 1 to 200 characters
 */
public record NewOrganisation(
    @NotBlank @OrganisationSlug String slug, @NotBlank @Size(max = 200) String displayName) {}
