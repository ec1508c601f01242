package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code POST /v1/private/sessions}: one private completion (ADR 0017).
 *
 * @param model {@code id} or {@code id@x.y.z}; never {@code auto}: the adapter auto picks depends
 *     on the prompt's words, which the opening would show (ADR 0037)
 * @param maxTokens tokens the client may generate, 1 to 4096: the budget is reserved for them
 * @param maxPromptTokens the prefill's most tokens, 1 to 65535 (default 4096)
 * @param publicKeys the client's CKKS keys, base64 of their kernels encoding, one per ring the base
 *     model can need: each the public key and the Galois keys the node packs answers with (ADR
 *     0032; 2.7 MB at N = 4096, at most 10.6 MB in any ring), 1 to 8 rings, at most 48 MiB of
 *     base64 in all
 * @param dpNoiseMultiplier z for the delta's noise, at least the policy's; null for the policy's
 * @param frameKeyWrap base64 of the client's frame-key wrap (ADR 0037): one fresh secret per fleet
 *     it trusts, each wrapped to that fleet's public key ({@code GET /v1/private/fleets}, pinned by
 *     the client) and bound to {@code publicKeys}; relayed to the node, which alone can open its
 *     entry, so the marketplace can neither read nor forge the session's frames
 */
public record PrivateSessionRequest(
    String model,
    @JsonProperty("max_tokens") Integer maxTokens,
    @JsonProperty("max_prompt_tokens") Integer maxPromptTokens,
    @JsonProperty("public_keys") java.util.List<String> publicKeys,
    @JsonProperty("dp_noise_multiplier") Double dpNoiseMultiplier,
    @JsonProperty("frame_key_wrap") String frameKeyWrap) {
  /** The most tokens a session may generate. */
  public static final int MAX_TOKENS = 4096;

  /** The prompt bound when the client names none. */
  public static final int DEFAULT_MAX_PROMPT_TOKENS = 4096;

  /** The most public keys, and base64 characters of them in all, a session may carry. */
  public static final int MAX_PUBLIC_KEYS = 8;

  /**
   * The most base64 characters of keys in all: three rings of the largest keys (10.6 MB each, ADR
   * 0032), within the node's 65 MB request limit.
   */
  public static final int MAX_PUBLIC_KEY_CHARS = 48 << 20;

  /** The most base64 characters of a frame-key wrap: one entry for each of 64 fleets at most. */
  public static final int MAX_FRAME_KEY_WRAP_CHARS =
      4 * ((io.tensafe.tgsp.container.RecipientsCodec.MAX_SECTION_BYTES + 2) / 3);
}
