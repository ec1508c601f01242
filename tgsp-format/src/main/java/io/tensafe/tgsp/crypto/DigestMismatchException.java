package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/** A digest recomputed from the bytes differs from the one the signed package declares. */
public final class DigestMismatchException extends TgspException {
  public DigestMismatchException(String message) {
    super(message);
  }

  public DigestMismatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
