package io.tensafe.tgsp.json;

import io.tensafe.tgsp.TgspException;

/** The bytes are not strict JSON within the parser's limits; names the byte offset. */
public final class JsonSyntaxException extends TgspException {
  private final long offset;

  public JsonSyntaxException(String what, String problem, long offset) {
    super(what + ": " + problem + " at character offset " + offset);
    this.offset = offset;
  }

  /** Character offset in the decoded input where the problem was found. */
  public long offset() {
    return offset;
  }
}
