package io.tensafe.tgsp.io;

import io.tensafe.tgsp.TgspException;

/** The input ended before a field it declares was complete. */
public final class TruncatedInputException extends TgspException {
  public TruncatedInputException(String field, long needed, long available) {
    super(field + " needs " + needed + " bytes but only " + available + " remain");
  }
}
