package io.tensafe.tgsp.io;

import io.tensafe.tgsp.TgspException;

/** A length or count read from untrusted bytes is larger than the limit the reader allows. */
public final class LimitExceededException extends TgspException {
  private final String field;
  private final long value;
  private final long limit;

  public LimitExceededException(String field, long value, long limit) {
    super(field + " is " + Long.toUnsignedString(value) + " bytes, over the limit of " + limit);
    this.field = field;
    this.value = value;
    this.limit = limit;
  }

  /** The name of the length field that was too large. */
  public String field() {
    return field;
  }

  /** The value read, as an unsigned number. */
  public long value() {
    return value;
  }

  /** The largest value the reader accepts for this field. */
  public long limit() {
    return limit;
  }
}
