package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The answer to {@code POST /v1/private/sessions}.
 *
 * @param id the session (and request) id
 * @param model {@code id@x.y.z} of the version the session runs
 * @param plan the node's public plan: {@code {groups: [{sites: [{path, input_width, output_width,
 *     rank}]}], rings}}, the sites in the order the client's decoder visits them
 * @param clipNorm the L2 norm the client clips each input to before encrypting it (the policy's C)
 * @param baseModel the adapter's base model and, when its manifest names it, the SHA-256 of its
 *     {@code config.json}, which the client checks against its own model folder before any frame
 * @param prefillChunkTokens the tokens of every prefill step but the last (a shorter step ends the
 *     prefill): the most whose frames fit {@code maxFrameBytes}
 * @param maxFrameBytes the largest frame either way
 * @param terms the session's public terms from the node (ADR 0025): {@code {a_row_l2_log2,
 *     b_row_l1_log2, spectral_log2, upload_seed_key, noised_sites_per_token, fleet_key_id}}, the
 *     signed bounds the client's scales come from, the node's key for its uploads' c1 seeds and the
 *     fleet key whose entry of the client's frame-key wrap the node opened (ADR 0037)
 */
public record OpenedSession(
    String id,
    String object,
    String model,
    String adapter,
    String version,
    Plan plan,
    @JsonProperty("clip_norm") double clipNorm,
    @JsonProperty("base_model") BaseModel baseModel,
    @JsonProperty("prefill_chunk_tokens") int prefillChunkTokens,
    @JsonProperty("max_frame_bytes") long maxFrameBytes,
    Terms terms) {

  /** The session's public terms, as the node sent them. */
  public record Terms(
      @JsonProperty("a_row_l2_log2") int aRowL2Log2,
      @JsonProperty("b_row_l1_log2") int bRowL1Log2,
      @JsonProperty("spectral_log2") int spectralLog2,
      @JsonProperty("upload_seed_key") String uploadSeedKey,
      @JsonProperty("noised_sites_per_token") int noisedSitesPerToken,
      @JsonProperty("fleet_key_id") String fleetKeyId) {}

  /** The site groups and the rings of the session's keys, as the node sent them. */
  public record Plan(JsonNode groups, JsonNode rings) {}

  /** The base model the adapter was trained on. */
  public record BaseModel(String id, @JsonProperty("config_sha256") String configSha256) {}
}
