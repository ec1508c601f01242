package io.tensafe.tgsp.session;

/** What a private-session frame carries (ADR 0017; wire form ADR 0018). */
public enum FrameKind {
  /** Client to node: Enc(x), one ciphertext per input chunk and token of the step. */
  ROUND_ONE(1),
  /** Client to node: Enc(share), per site of the group and token, the site's share chunks. */
  ROUND_TWO(2),
  /** Node to client: the answers (share or switched) of the round the frame answers. */
  ANSWER(3);

  private final int code;

  FrameKind(int code) {
    this.code = code;
  }

  /** The byte on the wire, 1 to 3. */
  public int code() {
    return code;
  }

  static FrameKind of(int code) throws MalformedFrameException {
    for (FrameKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    throw new MalformedFrameException("unknown frame kind " + code);
  }
}
