package io.tensafe.marketplace.creator;

import java.time.OffsetDateTime;

/** A registered signing key as the API shows it (public material only). */
public record SigningKeyView(
    String keyId, String creatorId, OffsetDateTime registeredAt, OffsetDateTime revokedAt) {
  static SigningKeyView of(SigningKey k, String creatorRef) {
    return new SigningKeyView(k.keyId, creatorRef, k.registeredAt, k.revokedAt);
  }
}
