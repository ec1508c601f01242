package io.tensafe.marketplace.organisation;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * A person to add to an organisation: an existing user, by username.
 *
 * @param role "member" (default) or "owner"
 */
public record NewMember(
    @NotBlank @Size(max = 255) String username, @Pattern(regexp = "owner|member") String role) {}
