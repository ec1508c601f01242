package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/**
 * A package signature does not verify; names which of the two algorithms failed (both must pass).
 */
public final class SignatureInvalidException extends TgspException {
  public SignatureInvalidException(String message) {
    super(message);
  }

  public SignatureInvalidException(String message, Throwable cause) {
    super(message, cause);
  }
}
