package io.tensafe.marketplace.identity;

import java.time.OffsetDateTime;

/**
 * A person as an admin sees them.
 *
 * @param id their OIDC subject, which also suspends them ({@code POST
 *     /api/admin/users/{id}/suspend})
 * @param organisation the slug of their personal organisation
 * @param suspendedAt when they were suspended, or null
 */
public record UserSummary(
    String id,
    String username,
    String email,
    String organisation,
    OffsetDateTime createdAt,
    OffsetDateTime suspendedAt) {}
