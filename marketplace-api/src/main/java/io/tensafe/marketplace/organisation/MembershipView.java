package io.tensafe.marketplace.organisation;

/**
 * An organisation as one of its members sees it.
 *
 * @param role the caller's role in it: "owner" or "member"
 * @param personal true for the caller's personal organisation, made at first contact
 */
public record MembershipView(String slug, String displayName, String role, boolean personal) {}
