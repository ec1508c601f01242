package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.Parameters;

/** Answers a deviating node chooses, for tests that attack the private protocol (ADR 0037). */
public final class DeviatingAnswers {
  private DeviatingAnswers() {}

  /** A share answer with {@code c1} and {@code c0} residues {@code [limb][...]} of its choosing. */
  public static byte[] shareAnswer(Parameters p, long[][] c1, long[][] c0, double scale) {
    return AnswerCodec.toBytes(new ShareAnswer(p, c1, c0, scale));
  }
}
