package io.tensafe.node.marketplace;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The secret that proves a generation request comes from the marketplace. A connected node draws
 * 256 random bits at start, gives them to the marketplace when it registers (over its OIDC-
 * authenticated channel), and then serves generation and adapter requests only with {@code
 * Authorization: Bearer <token>}. A restart draws a new one and re-registers, so the old one dies
 * with the process. A standalone node (no marketplace) requires none: it listens on loopback unless
 * configured otherwise. The token never reaches logs.
 */
@ApplicationScoped
public class DispatchToken {
  @Inject MarketplaceConnection marketplace;

  private final String value;

  public DispatchToken() {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    value = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  /** Whether callers must present the token: true for a node connected to a marketplace. */
  public boolean required() {
    return marketplace.client().isPresent();
  }

  /** The token, 43 characters of base64url; only for the registration body. */
  public String value() {
    return value;
  }

  /** Whether {@code authorization} (a header value, may be null) carries the token. */
  public boolean accepts(String authorization) {
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      return false;
    }
    return MessageDigest.isEqual(
        authorization.substring(7).strip().getBytes(StandardCharsets.US_ASCII),
        value.getBytes(StandardCharsets.US_ASCII));
  }
}
