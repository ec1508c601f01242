package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/** The package is not encrypted to the fleet key the reader holds. */
public final class NotARecipientException extends TgspException {
  public NotARecipientException(String message) {
    super(message);
  }

  public NotARecipientException(String message, Throwable cause) {
    super(message, cause);
  }
}
