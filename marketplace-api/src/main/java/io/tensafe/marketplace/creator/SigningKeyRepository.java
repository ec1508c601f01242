package io.tensafe.marketplace.creator;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Creators' signing keys (table {@code creator_signing_key}), by key id. A key belongs to one
 * creator for good; revocation sets {@code revokedAt} once and is never undone.
 */
@ApplicationScoped
public class SigningKeyRepository implements PanacheRepositoryBase<SigningKey, String> {

  /** A creator's keys, revoked or not, in the order they were registered. */
  public List<SigningKey> ofCreator(java.util.UUID creatorId) {
    return list("creatorId", Sort.by("registeredAt"), creatorId);
  }

  /** A creator's unrevoked keys (in no particular order). */
  public List<SigningKey> unrevokedOf(java.util.UUID creatorId) {
    return list("creatorId = ?1 and revokedAt is null", creatorId);
  }

  /** Every creator's unrevoked keys, by key id. */
  public List<SigningKey> unrevoked() {
    return list("revokedAt is null", Sort.by("keyId"));
  }
}
