package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateClient;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A client's CKKS key pairs for one private session, one per ring of {@link SitePlan#rings}: the
 * secret keys stay in this object; only {@link #publicKeys} (public and Galois keys) leave it.
 */
public final class ClientKeys {
  private final Map<Integer, PrivateClient> byRing = new LinkedHashMap<>();

  /** The opening's encoded keys, made on the first {@link #publicKeys} call. */
  private List<byte[]> opening;

  private ClientKeys() {}

  /** Fresh key pairs for {@code rings} (log2 degrees, ascending). */
  public static ClientKeys generate(List<Integer> rings, SecureRandom random) {
    ClientKeys keys = new ClientKeys();
    for (int logN : rings) {
      keys.byRing.put(logN, new PrivateClient(SitePlan.ring(logN), random));
    }
    return keys;
  }

  /** The rings these keys are for, ascending. */
  public List<Integer> rings() {
    return List.copyOf(byRing.keySet());
  }

  /**
   * The opening's keys in ring order, as {@link RingKeys} encodes them: each ring's public key and
   * Galois keys (2.7 MB at N = 4096, 10.6 MB at N = 16384; ADR 0032), the same on every call.
   */
  public synchronized List<byte[]> publicKeys() {
    if (opening == null) {
      opening = byRing.values().stream().map(RingKeys::toBytes).toList();
    }
    return opening.stream().map(byte[]::clone).toList();
  }

  /**
   * The client of ring {@code logN}.
   *
   * @throws IllegalArgumentException if there is no key for it
   */
  PrivateClient ring(int logN) {
    PrivateClient c = byRing.get(logN);
    if (c == null) {
      throw new IllegalArgumentException("no key for the ring of degree 2^" + logN);
    }
    return c;
  }
}
