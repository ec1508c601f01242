package io.tensafe.chat.openai;

/**
 * An OpenAI request that breaks a rule: the message says what, and {@link #param} names the field
 * at fault (OpenAI's {@code param}), e.g. {@code messages[2].tool_call_id}; null when the body as a
 * whole is wrong. Services answer it as a 400.
 */
public final class InvalidRequestException extends Exception {
  private final String param;

  public InvalidRequestException(String param, String message) {
    super(message, null, false, false);
    this.param = param;
  }

  /** The field at fault, or null. */
  public String param() {
    return param;
  }
}
