package io.tensafe.kernels.helora;

import io.tensafe.kernels.rlwe.DeviatingParty;

/** A private client's secret key's coefficients, for tests that check what an attack recovered. */
public final class ClientSecrets {
  private ClientSecrets() {}

  /** The centred coefficients of {@code client}'s secret key. */
  public static long[] of(PrivateClient client) {
    return DeviatingParty.coefficients(client.secretKey());
  }
}
