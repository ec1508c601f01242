package io.tensafe.marketplace.apidoc;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The OpenAPI schema of a {@code /v1/chat/completions} or {@code /v1/completions} body, as {@code
 * openai.CompletionRequest} checks it; documentation only, never instantiated (the endpoints read
 * the raw bytes so that each error names the field and byte at fault).
 */
@Schema(
    description =
        "An OpenAI chat-completions (messages) or completions (prompt) request. Parameters not"
            + " listed are refused by name (400); those listed as no-op are accepted only with the"
            + " value given.")
public record CompletionBody(
    @Schema(
            required = true,
            description = "an adapter id, optionally @version, or auto (the keyword step-gate)")
        String model,
    @Schema(description = "chat: the conversation; content a string or text parts")
        List<Message> messages,
    @Schema(description = "completions: the prompt, a non-empty string") String prompt,
    @JsonProperty("max_tokens")
        @Schema(description = "1..4096, default 256", minimum = "1", maximum = "4096")
        Integer maxTokens,
    @JsonProperty("max_completion_tokens") @Schema(description = "as max_tokens (chat)")
        Integer maxCompletionTokens,
    @Schema(description = "0..2, default 1", minimum = "0", maximum = "2") Double temperature,
    @JsonProperty("top_p") @Schema(description = "(0, 1], default 1") Double topP,
    @Schema(description = "the sampler's seed; without one, a fresh one is drawn") Long seed,
    @Schema(
            description = "a string or up to 4 strings that end the answer",
            oneOf = {String.class, String[].class})
        Object stop,
    @Schema(description = "server-sent events when true") Boolean stream,
    @JsonProperty("stream_options") @Schema(description = "{\"include_usage\": true} with stream")
        StreamOptions streamOptions,
    @Schema(
            description =
                "choices to generate from the one prompt, 1..8, default 1: each choice is held to"
                    + " max_tokens and billed (usage sums them; the prompt is billed once, its"
                    + " prefill shared), the privacy budget is reserved for n × max_tokens, and a"
                    + " stream tags each chunk with its choice's index. 400 naming n above 8;"
                    + " private mode (the client's local endpoint) takes 1 only",
            minimum = "1",
            maximum = "8")
        Integer n,
    @Schema(description = "recorded nowhere") String user,
    @JsonProperty("presence_penalty") @Schema(description = "no-op: 0 only") Double presencePenalty,
    @JsonProperty("frequency_penalty") @Schema(description = "no-op: 0 only")
        Double frequencyPenalty,
    @Schema(
            description =
                "chat: true returns each generated token's log-probability in"
                    + " choices[].logprobs.content[] ({token, logprob, bytes, top_logprobs}),"
                    + " streamed in each chunk's choices[].logprobs.content for its tokens. The"
                    + " model's own log-softmax, before temperature, top_p and any"
                    + " constraint's mask; bytes are the UTF-8 bytes of the token's text (a token"
                    + " ending inside a multi-byte character has empty text, the next one carries"
                    + " the character). Not with tools (400). completions: false (or 0) only")
        Boolean logprobs,
    @JsonProperty("top_logprobs")
        @Schema(
            description =
                "chat: 0..20 most likely tokens reported at each step, most likely first, each"
                    + " {token, logprob, bytes}; above 0 only with logprobs: true (else 400"
                    + " naming top_logprobs)",
            minimum = "0",
            maximum = "20")
        Integer topLogprobs,
    @Schema(
            description =
                "chat: up to 128 function tools ({\"type\": \"function\", \"function\": {name,"
                    + " description, parameters, strict}}) offered to the model; its calls come"
                    + " back as tool_calls",
            type = SchemaType.ARRAY)
        List<Object> tools,
    @JsonProperty("tool_choice")
        @Schema(
            description =
                "chat: \"auto\" (default with tools: the model decides), \"none\" (no tools"
                    + " offered), \"required\" (the model must call one or more tools) or"
                    + " {\"type\": \"function\", \"function\": {\"name\": ...}} (it must call that"
                    + " one, which must be among tools). A forced call is kept by constrained"
                    + " decoding: its arguments match the tool's parameters schema, which must then"
                    + " be in the json_schema subset (else 400 naming the keyword). 400 naming"
                    + " tool_choice for any other value",
            oneOf = {String.class, ToolChoiceFunction.class})
        Object toolChoice,
    @JsonProperty("parallel_tool_calls")
        @Schema(
            description =
                "chat: default true; false: the answer holds at most one tool call (a forced"
                    + " choice decodes one; under auto, generation ends after the first call)")
        Boolean parallelToolCalls,
    @JsonProperty("response_format") @Schema(description = "no-op: {\"type\": \"text\"} only")
        Object responseFormat) {

  /** One chat message. */
  @Schema(description = "role system, developer, user or assistant; content a string or text parts")
  public record Message(@Schema(required = true) String role, Object content) {}

  /** A {@code tool_choice} that names the function the model must call. */
  public record ToolChoiceFunction(
      @Schema(required = true, enumeration = "function") String type,
      @Schema(required = true) Name function) {
    /** The function's name. */
    public record Name(@Schema(required = true) String name) {}
  }

  /** What a stream ends with. */
  public record StreamOptions(@JsonProperty("include_usage") Boolean includeUsage) {}
}
