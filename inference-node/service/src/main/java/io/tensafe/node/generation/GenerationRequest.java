package io.tensafe.node.generation;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A generation request: a raw {@code prompt} or chat {@code messages} (OpenAI's JSON, rendered with
 * the model folder's chat template, with {@code tools} when the caller offers the model any), and
 * sampling parameters with OpenAI's names. Absent values take defaults: max_tokens 128, greedy
 * (temperature 0), top_p 1, top_k 0 (off), a fresh random seed, no stop strings, not streamed, the
 * base model.
 *
 * @param adapter {@code id@version}, or {@code id} for the id's active version; null for the base
 *     model
 * @param requestId the marketplace's request id (a UUID) that the usage report carries; the node
 *     assigns one when absent
 * @param dpNoiseMultiplier σ/C for the adapter's input noise; at least the adapter policy's (a
 *     request may ask for more privacy, never less); null for the policy's
 * @param maxPromptTokens the most prompt tokens the caller accounted for (the marketplace reserves
 *     the client's privacy budget from it); a longer prompt is refused; null for the node's own
 *     limit only
 * @param responseFormat OpenAI's {@code response_format} (text, json_object or json_schema in the
 *     chat library's subset); null for free text
 * @param toolChoice OpenAI's {@code tool_choice} for the {@code tools} offered; {@code "required"}
 *     or a named function forces a call by constrained decoding (ADR 0043); null for {@code "auto"}
 * @param parallelToolCalls OpenAI's {@code parallel_tool_calls}; false allows at most one call;
 *     null for true
 * @param n choices to generate from the one prompt, 1 to {@link
 *     io.tensafe.node.runtime.TextGenerator#MAX_CHOICES}, sharing its prefill; null for 1
 * @param logprobs whether each generated token's log-probability is streamed with it; null for
 *     false
 * @param topLogprobs alternatives per token, 0 to 20, only with {@code logprobs}; null for 0
 */
public record GenerationRequest(
    String prompt,
    JsonNode messages,
    JsonNode tools,
    @JsonProperty("max_tokens") Integer maxTokens,
    Double temperature,
    @JsonProperty("top_p") Double topP,
    @JsonProperty("top_k") Integer topK,
    Long seed,
    List<String> stop,
    Boolean stream,
    String adapter,
    @JsonProperty("request_id") String requestId,
    @JsonProperty("dp_noise_multiplier") Double dpNoiseMultiplier,
    @JsonProperty("max_prompt_tokens") Long maxPromptTokens,
    @JsonProperty("response_format") JsonNode responseFormat,
    @JsonProperty("tool_choice") JsonNode toolChoice,
    @JsonProperty("parallel_tool_calls") JsonNode parallelToolCalls,
    Integer n,
    Boolean logprobs,
    @JsonProperty("top_logprobs") Integer topLogprobs) {}
