package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code POST /v1/private/sessions}: one private completion (ADR 0017).
 *
 * @param model {@code id} or {@code id@x.y.z}; never {@code auto} (the client routes itself, over
 *     {@code GET /v1/routing/candidates}, since only it sees the prompt)
 * @param maxTokens tokens the client may generate, 1 to 4096: the budget is reserved for them
 * @param maxPromptTokens the prefill's most tokens, 1 to 65535 (default 4096)
 * @param publicKey the client's CKKS public key, base64 of its kernels encoding (at most 2 MiB)
 * @param dpNoiseMultiplier z for the delta's noise, at least the policy's; null for the policy's
 */
public record PrivateSessionRequest(
    String model,
    @JsonProperty("max_tokens") Integer maxTokens,
    @JsonProperty("max_prompt_tokens") Integer maxPromptTokens,
    @JsonProperty("public_key") String publicKey,
    @JsonProperty("dp_noise_multiplier") Double dpNoiseMultiplier) {
  /** The most tokens a session may generate. */
  public static final int MAX_TOKENS = 4096;

  /** The prompt bound when the client names none. */
  public static final int DEFAULT_MAX_PROMPT_TOKENS = 4096;

  /** The longest public key accepted, in base64 characters. */
  public static final int MAX_PUBLIC_KEY_CHARS = 2 << 20;
}
