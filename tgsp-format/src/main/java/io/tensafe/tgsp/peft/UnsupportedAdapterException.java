package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.TgspException;

/**
 * A PEFT adapter uses a feature TGSP does not carry (DoRA, trained biases, modules_to_save,
 * per-module ranks, ...) or is inconsistent (ranks, shapes, missing halves). The message names the
 * feature or tensor.
 */
public final class UnsupportedAdapterException extends TgspException {
  public UnsupportedAdapterException(String message) {
    super(message);
  }
}
