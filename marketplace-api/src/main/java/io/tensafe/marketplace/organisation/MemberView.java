package io.tensafe.marketplace.organisation;

import java.time.OffsetDateTime;

/** A member of an organisation. */
public record MemberView(String username, String role, OffsetDateTime addedAt) {}
