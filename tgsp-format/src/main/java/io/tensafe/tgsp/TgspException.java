package io.tensafe.tgsp;

/**
 * Root of every checked exception the TGSP library throws. Callers that only need to know "this
 * package is unusable" catch this type; each subclass names one rule that failed, and its message
 * names the field, the value seen and the limit.
 */
public class TgspException extends Exception {
  public TgspException(String message) {
    super(message);
  }

  public TgspException(String message, Throwable cause) {
    super(message, cause);
  }
}
