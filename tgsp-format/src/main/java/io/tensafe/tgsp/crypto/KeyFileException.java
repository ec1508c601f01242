package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;

/** A key file is unreadable, of the wrong kind, or its key id does not match its keys. */
public final class KeyFileException extends TgspException {
  public KeyFileException(String message) {
    super(message);
  }

  public KeyFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
