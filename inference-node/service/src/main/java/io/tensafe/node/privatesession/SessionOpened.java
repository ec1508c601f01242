package io.tensafe.node.privatesession;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.tensafe.node.privatemode.SitePlan;
import java.util.List;

/**
 * A private session the node opened: its plan (public shapes only: the site groups and the model's
 * rings, log2 of the CKKS ring degrees its keys are for) and the clip norm the client applies to
 * each input before encrypting it.
 *
 * @param prefillChunkTokens the tokens of every prefill step but the last: the most whose frames
 *     fit the session's frame limit (tgsp-format's {@code FrameOrder})
 * @param clipNorm the adapter policy's C, > 0
 */
public record SessionOpened(
    @JsonProperty("session_id") String sessionId,
    List<GroupView> groups,
    List<Integer> rings,
    @JsonProperty("prefill_chunk_tokens") int prefillChunkTokens,
    @JsonProperty("clip_norm") double clipNorm) {

  /** One site group of the plan. */
  public record GroupView(List<SiteView> sites) {}

  /** One site: its module path, widths and rank. */
  public record SiteView(
      String path,
      @JsonProperty("input_width") int inputWidth,
      @JsonProperty("output_width") int outputWidth,
      int rank) {}

  static SessionOpened of(String sessionId, SitePlan plan, int prefillChunk, double clipNorm) {
    return new SessionOpened(
        sessionId,
        plan.groups().stream()
            .map(
                g ->
                    new GroupView(
                        g.sites().stream()
                            .map(
                                s ->
                                    new SiteView(
                                        s.path(), s.inputWidth(), s.outputWidth(), s.rank()))
                            .toList()))
            .toList(),
        plan.rings(),
        prefillChunk,
        clipNorm);
  }
}
