package io.tensafe.chat.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tensafe.chat.constraint.OutputLanguage;
import io.tensafe.chat.json.ResponseFormat;
import io.tensafe.chat.json.ResponseFormatException;
import io.tensafe.chat.tools.ToolCallGrammar;
import io.tensafe.chat.tools.ToolChoice;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A checked {@code /v1/chat/completions} or {@code /v1/completions} body: one rule for the
 * marketplace and the private client's local endpoint. Supported: {@code model}, {@code messages}
 * (chat, {@link ChatMessages}) or {@code prompt} (a string), {@code max_tokens} (or {@code
 * max_completion_tokens}; default 256, at most 4096), {@code temperature} [0, 2], {@code top_p} (0,
 * 1], {@code seed}, {@code stop} (a string or up to 4), {@code stream}, {@code
 * stream_options.include_usage}, {@code n} (1 to {@link #MAX_CHOICES} choices, ADR 0044) and {@code
 * user} (recorded nowhere; accepted because clients send it); for chat, {@code logprobs} and {@code
 * top_logprobs} (0 to 20, only with {@code logprobs: true}; not with tools, whose answers are
 * re-written into calls), {@code tools}, {@code tool_choice} ({@code "auto"}, {@code "none"},
 * {@code "required"} or a named function, the last two forced by constrained decoding) and {@code
 * parallel_tool_calls} ({@link ToolOffer}); the parameters clients fill in with their no-op
 * defaults ({@code presence_penalty: 0}, {@code frequency_penalty: 0}, {@code logprobs: false},
 * {@code response_format: {"type": "text"}}, ...) with those values only. Anything else is refused
 * by name, never ignored; every type is checked ({@code "stream": "yes"} is refused, not a
 * non-streamed request), and each refusal names the field at fault.
 *
 * @param messagesOrPrompt the normalised messages (chat) or the prompt string, as the model runs it
 * @param tools the tools offered to the model, as sent; null when none is
 * @param turns each chat message's role and text, in order (empty for a prompt)
 * @param format chat's {@code response_format} ({@link ResponseFormat#TEXT} when absent or for
 *     completions); json_object and json_schema constrain the decoding (ADR 0031)
 * @param responseFormat the {@code response_format} as sent when it constrains the output (to
 *     forward to a node), else null
 * @param toolChoice {@code tool_choice} and {@code parallel_tool_calls}, checked ({@link
 *     ToolOffer})
 * @param forcedCalls the language a forced {@code tool_choice} constrains the answer to; null
 *     unless it forces a call
 * @param choices OpenAI's {@code n}: answers to generate from the one prompt, 1 to {@link
 *     #MAX_CHOICES}
 * @param logprobs {@link #NO_LOGPROBS} without {@code logprobs: true}, else {@code top_logprobs} (0
 *     when absent): alternatives per generated token, 0 to {@link #MAX_TOP_LOGPROBS}
 */
public record OpenAiRequest(
    String model,
    JsonNode messagesOrPrompt,
    boolean chat,
    int maxTokens,
    double temperature,
    double topP,
    Long seed,
    List<String> stop,
    boolean stream,
    boolean includeUsage,
    ArrayNode tools,
    List<ChatMessages.Turn> turns,
    ResponseFormat format,
    JsonNode responseFormat,
    ToolChoice toolChoice,
    ToolCallGrammar forcedCalls,
    int choices,
    int logprobs) {
  /** Tokens a request may ask for. */
  public static final int MAX_TOKENS = 4096;

  /**
   * The most choices ({@code n}) a request may ask for: 8, as the node's generator bounds them (ADR
   * 0044); every bound reserved for a request (DP releases, completion tokens) is multiplied by it.
   */
  public static final int MAX_CHOICES = 8;

  /** The most alternatives per token ({@code top_logprobs}): OpenAI's 20. */
  public static final int MAX_TOP_LOGPROBS = 20;

  /** {@link #logprobs} of a request that asks for none. */
  public static final int NO_LOGPROBS = -1;

  private static final List<String> COMMON_FIELDS =
      List.of(
          "model",
          "max_tokens",
          "temperature",
          "top_p",
          "seed",
          "stop",
          "stream",
          "stream_options",
          "n",
          "user");
  private static final Set<String> CHAT_FIELDS =
      with(
          COMMON_FIELDS,
          "messages",
          "max_completion_tokens",
          "tools",
          "tool_choice",
          "parallel_tool_calls",
          "response_format",
          "logprobs",
          "top_logprobs");
  private static final Set<String> COMPLETION_FIELDS = with(COMMON_FIELDS, "prompt");

  /**
   * Parameters that clients send with their default, no-op value (OpenAI's SDKs and frameworks fill
   * them in): accepted with that value, or null, and refused by name with any other. Each entry
   * says what the no-op value is.
   */
  private static final java.util.Map<String, NoOp> NO_OPS =
      java.util.Map.ofEntries(
          java.util.Map.entry("presence_penalty", new NoOp("0", v -> isZero(v))),
          java.util.Map.entry("frequency_penalty", new NoOp("0", v -> isZero(v))),
          java.util.Map.entry(
              "logprobs",
              new NoOp("false or 0", v -> isZero(v) || v.isBoolean() && !v.asBoolean())),
          java.util.Map.entry("top_logprobs", new NoOp("0", v -> isZero(v))),
          java.util.Map.entry("logit_bias", new NoOp("{}", v -> v.isObject() && v.isEmpty())),
          java.util.Map.entry("tools", new NoOp("[]", v -> v.isArray() && v.isEmpty())),
          java.util.Map.entry(
              "tool_choice",
              new NoOp(
                  "\"none\" or \"auto\" without tools",
                  v -> v.isTextual() && Set.of("none", "auto").contains(v.asText()))),
          java.util.Map.entry("parallel_tool_calls", new NoOp("a boolean", JsonNode::isBoolean)),
          java.util.Map.entry(
              "response_format",
              new NoOp(
                  "{\"type\": \"text\"}",
                  v -> v.isObject() && v.size() == 1 && "text".equals(v.path("type").asText()))),
          java.util.Map.entry("store", new NoOp("false", v -> v.isBoolean() && !v.asBoolean())),
          java.util.Map.entry("echo", new NoOp("false", v -> v.isBoolean() && !v.asBoolean())),
          java.util.Map.entry(
              "best_of", new NoOp("1", v -> v.isIntegralNumber() && v.asLong() == 1)));

  /** A parameter's no-op value, in words for the error, and the test for it. */
  private record NoOp(String value, java.util.function.Predicate<JsonNode> is) {}

  private static boolean isZero(JsonNode v) {
    return v.isNumber() && v.asDouble() == 0;
  }

  private static Set<String> with(List<String> common, String... more) {
    java.util.HashSet<String> all = new java.util.HashSet<>(common);
    all.addAll(List.of(more));
    return Set.copyOf(all);
  }

  /** Checks {@code body}; throws naming the first thing wrong, and the field. */
  public static OpenAiRequest parse(JsonNode body, boolean chat) throws InvalidRequestException {
    if (body == null || !body.isObject()) {
      throw new InvalidRequestException(null, "the body must be a JSON object");
    }
    Set<String> allowed = chat ? CHAT_FIELDS : COMPLETION_FIELDS;
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      NoOp noOp = NO_OPS.get(name);
      if (noOp != null && !allowed.contains(name)) {
        JsonNode v = body.get(name);
        if (!v.isNull() && !noOp.is().test(v)) {
          throw new InvalidRequestException(
              name,
              "unsupported parameter '"
                  + name
                  + "' with this value: only its no-op value ("
                  + noOp.value()
                  + ") is accepted");
        }
      } else if (!allowed.contains(name)) {
        throw new InvalidRequestException(name, "unsupported parameter '" + name + "'");
      }
    }
    String model = text(body, "model", true);
    int choices = 1;
    if (body.hasNonNull("n")) {
      JsonNode n = body.get("n");
      if (!n.isIntegralNumber() || n.asLong() < 1 || n.asLong() > MAX_CHOICES) {
        throw new InvalidRequestException(
            "n", "n must be an integer in [1, " + MAX_CHOICES + "], was " + n);
      }
      choices = n.asInt();
    }
    if (body.hasNonNull("user") && !body.get("user").isTextual()) {
      throw new InvalidRequestException("user", "user must be a string");
    }
    JsonNode content;
    List<ChatMessages.Turn> turns;
    ToolOffer offer = ToolOffer.NONE;
    int logprobs = NO_LOGPROBS;
    ResponseFormat format = ResponseFormat.TEXT;
    if (chat) {
      try {
        format = ResponseFormat.parse(body.get("response_format"));
      } catch (ResponseFormatException e) {
        throw new InvalidRequestException("response_format", e.getMessage());
      }
      ChatMessages messages = ChatMessages.parse(body.get("messages"));
      content = messages.normalised();
      turns = messages.turns();
      offer = ToolOffer.parse(body);
      logprobs = logprobs(body, offer);
    } else {
      content = body.get("prompt");
      if (content == null || !content.isTextual() || content.asText().isEmpty()) {
        throw new InvalidRequestException("prompt", "prompt must be a non-empty string");
      }
      turns = List.of();
    }
    String maxField = body.has("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    JsonNode max = body.get(maxField);
    int maxTokens = max == null || max.isNull() ? 256 : max.asInt(-1);
    if (max != null && !max.isNull() && !max.isIntegralNumber()
        || maxTokens < 1
        || maxTokens > MAX_TOKENS) {
      throw new InvalidRequestException(
          maxField, maxField + " must be an integer in [1, " + MAX_TOKENS + "]");
    }
    double temperature = number(body, "temperature", 1.0, 0, 2);
    double topP = number(body, "top_p", 1.0, Double.MIN_VALUE, 1);
    if (body.hasNonNull("seed") && !body.get("seed").isIntegralNumber()) {
      throw new InvalidRequestException("seed", "seed must be an integer");
    }
    Long seed = body.hasNonNull("seed") ? body.get("seed").asLong() : null;
    List<String> stop = stop(body.get("stop"));
    boolean stream = bool(body.get("stream"), "stream");
    JsonNode options = body.get("stream_options");
    boolean includeUsage = false;
    if (options != null && !options.isNull()) {
      if (!options.isObject()) {
        throw new InvalidRequestException("stream_options", "stream_options must be an object");
      }
      if (!stream) {
        throw new InvalidRequestException(
            "stream_options", "stream_options is only allowed with stream: true");
      }
      for (Iterator<String> names = options.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!name.equals("include_usage")) {
          throw new InvalidRequestException(
              "stream_options." + name, "unsupported stream option '" + name + "'");
        }
      }
      includeUsage = bool(options.get("include_usage"), "stream_options.include_usage");
    }
    return new OpenAiRequest(
        model,
        content,
        chat,
        maxTokens,
        temperature,
        topP,
        seed,
        stop,
        stream,
        includeUsage,
        offer.tools(),
        turns,
        format,
        format.constraint().isPresent() ? body.get("response_format") : null,
        offer.choice(),
        offer.forced(),
        choices,
        logprobs);
  }

  /**
   * Chat's {@code logprobs} (a boolean) and {@code top_logprobs} (an integer in [0, 20], above 0
   * only with {@code logprobs: true}; 0 or null is the no-op clients send); refused with tools,
   * whose answer reaches the client re-written into calls that the entries would not match.
   */
  private static int logprobs(JsonNode body, ToolOffer offer) throws InvalidRequestException {
    boolean on = bool(body.get("logprobs"), "logprobs");
    JsonNode top = body.get("top_logprobs");
    int count = 0;
    if (top != null && !top.isNull()) {
      if (!top.isIntegralNumber() || top.asLong() < 0 || top.asLong() > MAX_TOP_LOGPROBS) {
        throw new InvalidRequestException(
            "top_logprobs",
            "top_logprobs must be an integer in [0, " + MAX_TOP_LOGPROBS + "], was " + top);
      }
      count = top.asInt();
      if (count > 0 && !on) {
        throw new InvalidRequestException("top_logprobs", "top_logprobs requires logprobs: true");
      }
    }
    if (on && offer.tools() != null) {
      throw new InvalidRequestException(
          "logprobs",
          "logprobs is not available with tools: the answer is re-written into tool calls");
    }
    return on ? count : NO_LOGPROBS;
  }

  /**
   * The language the answer is constrained to: the forced tool calls' when {@code tool_choice}
   * forces a call (the answer is then calls only, so a {@code response_format} has no content to
   * shape), else the {@code response_format}'s; null for free text.
   */
  public OutputLanguage constraint() {
    return forcedCalls != null ? forcedCalls : format.grammar();
  }

  /**
   * The text after whose first occurrence generation ends (included), or null: the first call's
   * closing tag when {@code parallel_tool_calls: false} leaves the model free to call.
   */
  public String endAfter() {
    return new ToolOffer(tools, toolChoice, forcedCalls).endAfter();
  }

  /** A JSON boolean, or false when absent or null; anything else ("yes", 1) is refused. */
  private static boolean bool(JsonNode v, String field) throws InvalidRequestException {
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw new InvalidRequestException(
          field,
          field
              + " must be true or false, not "
              + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
              + " "
              + v);
    }
    return v.booleanValue();
  }

  private static List<String> stop(JsonNode s) throws InvalidRequestException {
    List<String> stop = new ArrayList<>();
    if (s == null || s.isNull()) {
      return stop;
    }
    if (s.isTextual()) {
      stop.add(s.asText());
    } else if (s.isArray() && s.size() <= 4) {
      for (JsonNode x : s) {
        if (!x.isTextual() || x.asText().isEmpty()) {
          throw new InvalidRequestException("stop", "stop strings must be non-empty strings");
        }
        stop.add(x.asText());
      }
    } else {
      throw new InvalidRequestException(
          "stop", "stop must be a string or an array of at most 4 strings");
    }
    return stop;
  }

  private static String text(JsonNode body, String field, boolean required)
      throws InvalidRequestException {
    JsonNode v = body.get(field);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      if (required) {
        throw new InvalidRequestException(field, field + " is required (a non-blank string)");
      }
      return null;
    }
    return v.asText();
  }

  private static double number(JsonNode body, String field, double fallback, double min, double max)
      throws InvalidRequestException {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isNumber() || !(v.asDouble() >= min && v.asDouble() <= max)) {
      throw new InvalidRequestException(
          field,
          field
              + " must be a number in ["
              + (min == Double.MIN_VALUE ? "0 exclusive" : min)
              + ", "
              + max
              + "]");
    }
    return v.asDouble();
  }
}
