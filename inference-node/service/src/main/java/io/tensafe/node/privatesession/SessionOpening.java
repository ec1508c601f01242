package io.tensafe.node.privatesession;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The marketplace's request to open a private session (ADR 0017), after it reserved the client's
 * budget.
 *
 * @param sessionId the marketplace's request id for the session (a UUID)
 * @param adapter {@code id@x.y.z}
 * @param publicKeys the client's CKKS public keys, base64 of their kernels encoding, one per ring
 *     the base model can need (the plan's {@code rings}, ascending)
 * @param maxPromptTokens the prefill's largest token count, 1 to 65535
 * @param maxDecodeSteps decode steps allowed (the client's max_tokens − 1), ≥ 0
 * @param dpNoiseMultiplier z for the delta's noise, at least the policy's; null for the policy's
 * @param maxFrameBytes the marketplace's frame limit; the session's frames fit it and the node's
 * @param frameKeyWrap base64 of the client's frame-key wrap: its entry for this node's fleet key
 *     holds the session's frame secret, bound to {@code publicKeys} (ADR 0037)
 */
public record SessionOpening(
    @JsonProperty("session_id") String sessionId,
    String adapter,
    @JsonProperty("public_keys") java.util.List<String> publicKeys,
    @JsonProperty("max_prompt_tokens") Integer maxPromptTokens,
    @JsonProperty("max_decode_steps") Integer maxDecodeSteps,
    @JsonProperty("dp_noise_multiplier") Double dpNoiseMultiplier,
    @JsonProperty("max_frame_bytes") Long maxFrameBytes,
    @JsonProperty("frame_key_wrap") String frameKeyWrap) {}
