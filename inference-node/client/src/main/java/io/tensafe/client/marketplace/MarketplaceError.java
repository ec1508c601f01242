package io.tensafe.client.marketplace;

import java.io.IOException;

/**
 * The marketplace answered an error: its status and problem+json body, which the local API passes
 * on to its caller unchanged (it carries OpenAI's {@code error} object too).
 */
public final class MarketplaceError extends IOException {
  private final int status;
  private final String body;

  public MarketplaceError(int status, String body) {
    super("the marketplace answered " + status + ": " + body);
    this.status = status;
    this.body = body;
  }

  public int status() {
    return status;
  }

  /** The marketplace's problem+json body, at most 64 KiB of it. */
  public String body() {
    return body;
  }
}
