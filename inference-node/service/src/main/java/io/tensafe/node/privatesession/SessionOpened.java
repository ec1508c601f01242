package io.tensafe.node.privatesession;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.tensafe.kernels.rlwe.RlweCodec;
import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.privatemode.PrivateLimits;
import io.tensafe.node.privatemode.SessionTerms;
import io.tensafe.node.privatemode.SitePlan;
import java.util.Base64;
import java.util.List;

/**
 * A private session the node opened: its plan (public shapes only: the site groups and the model's
 * rings, log2 of the CKKS ring degrees its keys are for), and its public terms (ADR 0025): the clip
 * norm the client applies to each input, the signed bounds its scales and noise come from, and the
 * node's key for the uploads' c1 seeds. Per group it states the exact ciphertext counts and upload
 * size of every frame, so that the marketplace checks them from what it relays, never from a
 * party's word.
 *
 * @param prefillChunkTokens the tokens of every prefill step but the last: the most whose frames
 *     fit the session's frame limit (tgsp-format's {@code FrameOrder})
 * @param clipNorm the adapter policy's C, > 0
 * @param aRowL2Log2 log2 of the signed bound on A's rows' L2 norms
 * @param bRowL1Log2 log2 of the signed bound on the scaled B's rows' L1 norms
 * @param spectralLog2 log2 of the signed spectral bound L
 * @param uploadSeedKey base64 of the node's 32-byte key for this session's c1 seeds
 * @param noisedSitesPerToken the sites the node noises once per token run: each a release of zCDP ρ
 *     = 1/(2z²)
 */
public record SessionOpened(
    @JsonProperty("session_id") String sessionId,
    List<GroupView> groups,
    List<Integer> rings,
    @JsonProperty("prefill_chunk_tokens") int prefillChunkTokens,
    @JsonProperty("clip_norm") double clipNorm,
    @JsonProperty("a_row_l2_log2") int aRowL2Log2,
    @JsonProperty("b_row_l1_log2") int bRowL1Log2,
    @JsonProperty("spectral_log2") int spectralLog2,
    @JsonProperty("upload_seed_key") String uploadSeedKey,
    @JsonProperty("noised_sites_per_token") int noisedSitesPerToken,
    @JsonProperty("fleet_key_id") String fleetKeyId) {

  /**
   * One site group of the plan, with its exact counts per token of a frame.
   *
   * @param roundOneCiphertexts client ciphertexts per token in a round-one frame
   * @param roundTwoCiphertexts client ciphertexts per token in a round-two frame
   * @param roundOneAnswers answer ciphertexts per token the node returns in round one
   * @param roundTwoAnswers answer ciphertexts per token the node returns in round two
   * @param uploadBytes the exact size of every client ciphertext of the group
   */
  public record GroupView(
      List<SiteView> sites,
      @JsonProperty("round_one_ciphertexts") int roundOneCiphertexts,
      @JsonProperty("round_two_ciphertexts") int roundTwoCiphertexts,
      @JsonProperty("round_one_answers") int roundOneAnswers,
      @JsonProperty("round_two_answers") int roundTwoAnswers,
      @JsonProperty("upload_bytes") long uploadBytes) {}

  /** One site: its module path, widths and rank. */
  public record SiteView(
      String path,
      @JsonProperty("input_width") int inputWidth,
      @JsonProperty("output_width") int outputWidth,
      int rank) {}

  static SessionOpened of(
      String sessionId,
      SitePlan plan,
      int prefillChunk,
      PrivateBounds bounds,
      SessionTerms terms,
      String fleetKeyId) {
    return new SessionOpened(
        sessionId,
        plan.groups().stream().map(SessionOpened::view).toList(),
        plan.rings(),
        prefillChunk,
        terms.scales().clipNorm(),
        bounds.aRowL2Log2(),
        bounds.bRowL1Log2(),
        bounds.spectralLog2(),
        Base64.getEncoder().encodeToString(terms.seeds().key()),
        plan.groups().stream().mapToInt(g -> g.sites().size()).sum(),
        fleetKeyId);
  }

  private static GroupView view(SitePlan.Group g) {
    return new GroupView(
        g.sites().stream()
            .map(s -> new SiteView(s.path(), s.inputWidth(), s.outputWidth(), s.rank()))
            .toList(),
        g.inputChunks(),
        g.sites().stream().mapToInt(g::shareChunks).sum(),
        g.sites().stream().mapToInt(s -> PrivateLimits.roundOneAnswers(g, s)).sum(),
        g.sites().stream().mapToInt(s -> PrivateLimits.roundTwoAnswers(g, s)).sum(),
        RlweCodec.uploadBytes(SitePlan.parameters(g)));
  }
}
