package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PackedOutputs;
import io.tensafe.kernels.helora.PrivatePacking;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerCodec;
import io.tensafe.kernels.rlwe.RlweCodec;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.SessionFrame;

/** Frame limits and layouts that follow from a session's plan and parameters (ADR 0018). */
public final class PrivateLimits {
  /** The most ciphertexts one frame may carry (a prefill of many tokens over three sites). */
  public static final int MAX_CIPHERTEXTS = 0xFFFF;

  private PrivateLimits() {}

  /** The largest answer the node sends in {@code p}'s ring (a share answer of N outputs). */
  public static long answerBytes(Parameters p) {
    return Math.max(
        AnswerCodec.shareBytes(p, p.ringDegree()), AnswerCodec.switchedBytes(p, p.ringDegree()));
  }

  /** What a client accepts from the node: up to 1 GiB per answer. */
  public static FrameLimits answers(Parameters p) {
    return new FrameLimits(1 << 30, MAX_CIPHERTEXTS, Math.toIntExact(answerBytes(p)));
  }

  /**
   * The most bytes one token adds to any frame of {@code plan}, either way: per group, the round
   * one request (its input chunks) and answer (each site's packed share answers and the check's),
   * and the round two request (each site's share chunks) and answer (each site's packed switched
   * answers, ADR 0032).
   */
  public static long bytesPerToken(SitePlan plan) {
    long most = 0;
    for (SitePlan.Group g : plan.groups()) {
      Parameters p = SitePlan.parameters(g);
      long request = 4L + RlweCodec.uploadBytes(p);
      long roundOne = 0;
      long roundTwo = 0;
      long shareRequests = 0;
      for (SitePlan.Site s : g.sites()) {
        PackedOutputs a = aOutputs(g, s, p);
        PackedOutputs b = bOutputs(g, s, p);
        for (int i = 0; i < a.answers(); i++) {
          roundOne += 4L + AnswerCodec.shareBytes(p, a.outputs(i));
        }
        roundOne += 4L + AnswerCodec.shareBytes(p, 1);
        for (int i = 0; i < b.answers(); i++) {
          roundTwo += 4L + AnswerCodec.switchedBytes(p, b.outputs(i));
        }
        shareRequests += g.shareChunks(s) * request;
      }
      long requests = Math.max(g.inputChunks() * request, shareRequests);
      most = Math.max(most, Math.max(Math.max(roundOne, roundTwo), requests));
    }
    return most;
  }

  /**
   * The prefill chunk of a session of {@code plan} whose frames may have at most {@code
   * maxFrameBytes}: the most tokens whose frames fit, at most 65535.
   *
   * @throws IllegalArgumentException if fewer than {@link FrameOrder#MIN_PREFILL_CHUNK} fit
   */
  public static int prefillChunk(SitePlan plan, long maxFrameBytes) {
    long fit = (maxFrameBytes - SessionFrame.HEADER_BYTES) / bytesPerToken(plan);
    if (fit < FrameOrder.MIN_PREFILL_CHUNK) {
      throw new IllegalArgumentException(
          "this adapter's frames take "
              + bytesPerToken(plan)
              + " bytes per token: fewer than "
              + FrameOrder.MIN_PREFILL_CHUNK
              + " tokens fit a frame of "
              + maxFrameBytes
              + " bytes");
    }
    return (int) Math.min(0xFFFF, fit);
  }

  /** Where round one's packed answer at a site of group {@code g} carries the r shares. */
  static PackedOutputs aOutputs(SitePlan.Group g, SitePlan.Site s, Parameters p) {
    return PrivatePacking.roundOne(s.inputWidth(), g.inputChunks(), s.rank(), p.ringDegree());
  }

  /** Where round two's packed answers at a site of group {@code g} carry the delta's outputs. */
  static PackedOutputs bOutputs(SitePlan.Group g, SitePlan.Site s, Parameters p) {
    return g.roundTwo(s).outputs();
  }

  /** Round one's answers per token at a site: A's packed answers, and the check's. */
  public static int roundOneAnswers(SitePlan.Group g, SitePlan.Site s) {
    return aOutputs(g, s, SitePlan.parameters(g)).answers() + 1;
  }

  /** Round two's answers per token at a site: B's outputs packed, at most N to an answer. */
  public static int roundTwoAnswers(SitePlan.Group g, SitePlan.Site s) {
    return bOutputs(g, s, SitePlan.parameters(g)).answers();
  }
}
