package io.tensafe.kernels.backend;

/** The argument checks every backend applies to {@link HeBackend#hostedLora}. */
public final class HostedLoraShapes {
  private HostedLoraShapes() {}

  /**
   * Throws unless there is at least one token, {@code messages} and {@code c1} have one row per
   * token, and every row has the ring degree of {@code weights}.
   */
  public static void check(HostedLoraWeights weights, long[][] messages, long[][] c1) {
    int n = weights.ntt().degree();
    if (messages.length == 0 || messages.length != c1.length) {
      throw new IllegalArgumentException(
          "need one c1 per message and at least one token; got "
              + messages.length
              + " messages and "
              + c1.length
              + " c1");
    }
    for (int t = 0; t < messages.length; t++) {
      if (messages[t].length != n || c1[t].length != n) {
        throw new IllegalArgumentException("token " + t + " does not have " + n + " coefficients");
      }
    }
  }
}
