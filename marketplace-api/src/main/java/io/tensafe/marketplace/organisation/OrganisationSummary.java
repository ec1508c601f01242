package io.tensafe.marketplace.organisation;

import java.time.OffsetDateTime;

/** An organisation as an admin sees it: every tenant, with its member count. */
public record OrganisationSummary(
    String slug, String displayName, long members, OffsetDateTime createdAt) {}
