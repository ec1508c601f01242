package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/** The package names a creator key id that the caller's trust store does not hold. */
public final class UnknownSignerException extends TgspException {
  public UnknownSignerException(String message) {
    super(message);
  }

  public UnknownSignerException(String message, Throwable cause) {
    super(message, cause);
  }
}
