package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.CoefficientLayout;
import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.SessionFrame;

/** Frame limits that follow from a session's parameters. */
public final class PrivateLimits {
  /** The most ciphertexts one frame may carry (a prefill of many tokens over three sites). */
  public static final int MAX_CIPHERTEXTS = 0xFFFF;

  private PrivateLimits() {}

  /** One ciphertext of two limbs, c1 in full: header, limb count, scale, 2 × 2 × N residues. */
  public static int ciphertextBytes(Parameters p) {
    return EncodingHeader.SIZE + 1 + 8 + 2 * 2 * 8 * p.ringDegree();
  }

  /** What a client accepts from the node: up to 1 GiB per answer. */
  public static FrameLimits answers(Parameters p) {
    return new FrameLimits(1 << 30, MAX_CIPHERTEXTS, ciphertextBytes(p));
  }

  /**
   * The most bytes one token adds to any frame of {@code plan}, either way: per group, the round
   * one and round two answers (a full ciphertext per plaintext of A or B, per site) and requests.
   */
  public static long bytesPerToken(SitePlan plan) {
    long most = 0;
    for (SitePlan.Group g : plan.groups()) {
      Parameters p = SitePlan.parameters(g);
      long each = 4L + ciphertextBytes(p);
      long roundOne = 0;
      long roundTwo = 0;
      for (SitePlan.Site s : g.sites()) {
        roundOne += aLayout(s, p).plaintextCount() * each;
        roundTwo += bLayout(s, p).plaintextCount() * each;
      }
      most = Math.max(most, Math.max(Math.max(roundOne, roundTwo), g.sites().size() * each));
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

  /** A's layout at a site: d inputs, r outputs (the shares). */
  static CoefficientLayout aLayout(SitePlan.Site s, Parameters p) {
    return new CoefficientLayout(s.inputWidth(), s.rank(), p.ringDegree());
  }

  /** B's layout at a site: r inputs (the shares), the delta's outputs. */
  static CoefficientLayout bLayout(SitePlan.Site s, Parameters p) {
    return new CoefficientLayout(s.rank(), s.outputWidth(), p.ringDegree());
  }
}
