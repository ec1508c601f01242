package io.tensafe.tgsp.crypto;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The creator keys a verifier trusts, by key id. The caller builds it (from the marketplace's
 * registered, unrevoked keys, or from {@code --trust} files); a package's own bytes never add to
 * it. Immutable.
 */
public final class TrustStore {
  private final Map<String, CreatorPublicKey> byKeyId;

  private TrustStore(Map<String, CreatorPublicKey> byKeyId) {
    this.byKeyId = Map.copyOf(byKeyId);
  }

  public static TrustStore of(List<CreatorPublicKey> keys) {
    Map<String, CreatorPublicKey> map = new LinkedHashMap<>();
    for (CreatorPublicKey k : keys) {
      map.put(k.keyId(), k);
    }
    return new TrustStore(map);
  }

  public Optional<CreatorPublicKey> find(String keyId) {
    return Optional.ofNullable(byKeyId.get(keyId));
  }

  public int size() {
    return byKeyId.size();
  }
}
