package io.tensafe.tgsp.io;

import io.tensafe.tgsp.TgspException;

/** Bytes follow the last field a structure declares; a strict reader refuses them. */
public final class TrailingBytesException extends TgspException {
  public TrailingBytesException(String what, int trailing) {
    super(what + " has " + trailing + " trailing bytes after its last field");
  }
}
