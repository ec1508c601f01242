package io.tensafe.tgsp.container;

import io.tensafe.tgsp.TgspException;

/**
 * The decrypted safetensors payload does not hold exactly the tensors, dtypes and shapes the signed
 * manifest declares.
 */
public final class ShapeMismatchException extends TgspException {
  public ShapeMismatchException(String message) {
    super(message);
  }
}
