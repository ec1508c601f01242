package io.tensafe.tgsp.safetensors;

import io.tensafe.tgsp.TgspException;

/** A safetensors file breaks a format rule; the message names the tensor or field and the value. */
public final class MalformedSafetensorsException extends TgspException {
  public MalformedSafetensorsException(String message) {
    super(message);
  }

  public MalformedSafetensorsException(String message, Throwable cause) {
    super(message, cause);
  }
}
