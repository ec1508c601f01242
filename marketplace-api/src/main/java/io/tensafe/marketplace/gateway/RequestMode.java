package io.tensafe.marketplace.gateway;

import java.util.Locale;

/**
 * How a request ran (ADR 0017): hosted (the node holds the key and sees the prompt) or private (the
 * client holds the key; the marketplace relayed ciphertext frames and counted them).
 */
public enum RequestMode {
  HOSTED,
  PRIVATE;

  /** The {@code gateway_request.mode} value. */
  public String column() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode of a {@code gateway_request.mode} value. */
  public static RequestMode of(String column) {
    return valueOf(column.toUpperCase(Locale.ROOT));
  }
}
