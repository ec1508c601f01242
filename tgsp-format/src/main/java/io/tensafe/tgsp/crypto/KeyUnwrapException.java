package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/** A recipient entry does not open with the fleet key: wrong key, or tampered entry or manifest. */
public final class KeyUnwrapException extends TgspException {
  public KeyUnwrapException(String message) {
    super(message);
  }

  public KeyUnwrapException(String message, Throwable cause) {
    super(message, cause);
  }
}
