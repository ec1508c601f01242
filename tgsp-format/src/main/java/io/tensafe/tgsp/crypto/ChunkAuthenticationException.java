package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/** A payload chunk fails AES-GCM authentication: tampered, truncated, reordered or spliced. */
public final class ChunkAuthenticationException extends TgspException {
  public ChunkAuthenticationException(String message) {
    super(message);
  }

  public ChunkAuthenticationException(String message, Throwable cause) {
    super(message, cause);
  }
}
