package io.tensafe.tgsp.session;

import io.tensafe.tgsp.TgspException;

/** A private-session frame breaks the wire format, a limit, or the session's order of rounds. */
public final class MalformedFrameException extends TgspException {
  public MalformedFrameException(String message) {
    super(message);
  }
}
