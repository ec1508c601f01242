package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.routing.RoutedText;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A checked {@code /v1/chat/completions} or {@code /v1/completions} body. Supported: {@code model},
 * {@code messages} (chat) or {@code prompt} (a string), {@code max_tokens} (or {@code
 * max_completion_tokens}; default 256, at most 4096), {@code temperature} [0, 2], {@code top_p} (0,
 * 1], {@code seed}, {@code stop} (a string or up to 4), {@code stream}, {@code
 * stream_options.include_usage}, {@code n} = 1 and {@code user} (recorded nowhere; accepted because
 * clients send it); the parameters clients fill in with their no-op defaults ({@code
 * presence_penalty: 0}, {@code frequency_penalty: 0}, {@code logprobs: false}, {@code tools: []},
 * {@code response_format: {"type": "text"}}, {@code parallel_tool_calls}, ...) with those values
 * only. Anything else is refused by name with 400, never ignored.
 *
 * <p>Chat messages are checked and normalised by {@link ChatMessages} (text content parts joined,
 * {@code developer} run as {@code system}). Every type is checked: {@code "stream": "yes"} is a
 * 400, not a non-streamed request. Each 400 names the field at fault (OpenAI's {@code param}).
 *
 * @param messagesOrPrompt the normalised messages (chat) or the prompt string, as the node runs it
 * @param routing the texts the step-gate reads, in order (see {@link ChatMessages#routing()})
 * @param promptTokenBound an upper bound on the tokens of the prompt the node will run (see {@link
 *     #promptTokenBound(JsonNode, boolean)}), computed once; range 1..{@link #MAX_PROMPT_BYTES}
 * @param responseFormat chat's json_object or json_schema {@code response_format}, checked by
 *     {@link ResponseFormats} and forwarded to the node; null for free text
 */
public record CompletionRequest(
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
    List<RoutedText> routing,
    long promptTokenBound,
    JsonNode responseFormat) {
  /** Tokens a request may ask for. */
  public static final int MAX_TOKENS = 4096;

  /**
   * The largest rendered prompt, in UTF-8 bytes (so also the largest prompt-token bound): 1 MiB, a
   * quarter of the body limit, beyond every model context this marketplace serves.
   */
  public static final int MAX_PROMPT_BYTES = 1 << 20;

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
      with(COMMON_FIELDS, "messages", "max_completion_tokens", "response_format");
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

  /** Checks {@code body}; throws a 400 problem naming the first thing wrong, and the field. */
  public static CompletionRequest parse(JsonNode body, boolean chat) {
    if (body == null || !body.isObject()) {
      throw ProblemTypes.validation("the body must be a JSON object");
    }
    Set<String> allowed = chat ? CHAT_FIELDS : COMPLETION_FIELDS;
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      NoOp noOp = NO_OPS.get(name);
      if (noOp != null && !allowed.contains(name)) {
        JsonNode v = body.get(name);
        if (!v.isNull() && !noOp.is().test(v)) {
          throw ProblemTypes.validation(
              name,
              "unsupported parameter '"
                  + name
                  + "' with this value: only its no-op value ("
                  + noOp.value()
                  + ") is accepted");
        }
      } else if (!allowed.contains(name)) {
        throw ProblemTypes.validation(name, "unsupported parameter '" + name + "'");
      }
    }
    String model = text(body, "model", true);
    if (body.hasNonNull("n") && !(body.get("n").isIntegralNumber() && body.get("n").asInt() == 1)) {
      throw ProblemTypes.validation("n", "n must be 1: one choice per request");
    }
    if (body.hasNonNull("user") && !body.get("user").isTextual()) {
      throw ProblemTypes.validation("user", "user must be a string");
    }
    JsonNode content;
    List<RoutedText> routing;
    if (chat) {
      ChatMessages messages = ChatMessages.parse(body.get("messages"));
      content = messages.normalised();
      routing = messages.routing();
    } else {
      content = body.get("prompt");
      if (content == null || !content.isTextual() || content.asText().isEmpty()) {
        throw ProblemTypes.validation("prompt", "prompt must be a non-empty string");
      }
      routing = List.of(new RoutedText("the prompt", content.asText()));
    }
    String maxField = body.has("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    JsonNode max = body.get(maxField);
    int maxTokens = max == null || max.isNull() ? 256 : max.asInt(-1);
    if (max != null && !max.isNull() && !max.isIntegralNumber()
        || maxTokens < 1
        || maxTokens > MAX_TOKENS) {
      throw ProblemTypes.validation(
          maxField, maxField + " must be an integer in [1, " + MAX_TOKENS + "]");
    }
    double temperature = number(body, "temperature", 1.0, 0, 2);
    double topP = number(body, "top_p", 1.0, Double.MIN_VALUE, 1);
    if (body.hasNonNull("seed") && !body.get("seed").isIntegralNumber()) {
      throw ProblemTypes.validation("seed", "seed must be an integer");
    }
    Long seed = body.hasNonNull("seed") ? body.get("seed").asLong() : null;
    List<String> stop = stop(body.get("stop"));
    boolean stream = bool(body.get("stream"), "stream");
    JsonNode options = body.get("stream_options");
    boolean includeUsage = false;
    if (options != null && !options.isNull()) {
      if (!options.isObject()) {
        throw ProblemTypes.validation("stream_options", "stream_options must be an object");
      }
      if (!stream) {
        throw ProblemTypes.validation(
            "stream_options", "stream_options is only allowed with stream: true");
      }
      for (Iterator<String> names = options.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!name.equals("include_usage")) {
          throw ProblemTypes.validation(
              "stream_options." + name, "unsupported stream option '" + name + "'");
        }
      }
      includeUsage = bool(options.get("include_usage"), "stream_options.include_usage");
    }
    long bound = promptTokenBound(content, chat);
    if (bound > MAX_PROMPT_BYTES) {
      throw new io.tensafe.marketplace.problem.ApiProblem(
              io.tensafe.marketplace.problem.ProblemKind.REQUEST_TOO_LARGE,
              413,
              "Prompt too large",
              "the prompt renders to "
                  + bound
                  + " UTF-8 bytes; at most "
                  + MAX_PROMPT_BYTES
                  + " are accepted")
          .withParam(chat ? "messages" : "prompt");
    }
    return new CompletionRequest(
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
        routing,
        bound,
        ResponseFormats.checked(body));
  }

  /** A JSON boolean, or false when absent or null; anything else ("yes", 1) is a 400. */
  private static boolean bool(JsonNode v, String field) {
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw ProblemTypes.validation(
          field,
          field
              + " must be true or false, not "
              + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
              + " "
              + v);
    }
    return v.booleanValue();
  }

  private static List<String> stop(JsonNode s) {
    List<String> stop = new ArrayList<>();
    if (s == null || s.isNull()) {
      return stop;
    }
    if (s.isTextual()) {
      stop.add(s.asText());
    } else if (s.isArray() && s.size() <= 4) {
      for (JsonNode x : s) {
        if (!x.isTextual() || x.asText().isEmpty()) {
          throw ProblemTypes.validation("stop", "stop strings must be non-empty strings");
        }
        stop.add(x.asText());
      }
    } else {
      throw ProblemTypes.validation(
          "stop", "stop must be a string or an array of at most 4 strings");
    }
    return stop;
  }

  /**
   * An upper bound on the tokens of the prompt the node will run: the UTF-8 bytes, after NFC
   * normalisation, of the text it renders (the prompt; or ChatML, {@code
   * <|im_start|>role\ncontent<|im_end|>\n} per message then {@code <|im_start|>assistant\n}). A
   * byte-level BPE tokenizer such as Qwen's never makes more tokens than that. The node is told
   * this bound ({@code max_prompt_tokens}) and refuses a prompt above it, so privacy budgets
   * reserved from it hold whatever the tokenizer. Range: 1 to the body's size limit.
   */
  static long promptTokenBound(JsonNode messagesOrPrompt, boolean chat) {
    String normalised =
        Normalizer.normalize(renderedPrompt(messagesOrPrompt, chat), Normalizer.Form.NFC);
    return Math.max(1, normalised.getBytes(StandardCharsets.UTF_8).length);
  }

  /** The prompt text the node tokenizes: the prompt, or the messages in ChatML. */
  public String renderedPrompt() {
    return renderedPrompt(messagesOrPrompt, chat);
  }

  private static String renderedPrompt(JsonNode messagesOrPrompt, boolean chat) {
    StringBuilder text = new StringBuilder();
    if (chat) {
      for (JsonNode m : messagesOrPrompt) {
        text.append("<|im_start|>")
            .append(m.path("role").asText())
            .append('\n')
            .append(m.path("content").asText())
            .append("<|im_end|>\n");
      }
      text.append("<|im_start|>assistant\n");
    } else {
      text.append(messagesOrPrompt.asText());
    }
    return text.toString();
  }

  /** What the gateway meters of this request. */
  public io.tensafe.marketplace.gateway.HostedRequest hosted() {
    return new io.tensafe.marketplace.gateway.HostedRequest(
        model, routing, renderedPrompt(), maxTokens, this::nodeBody);
  }

  /**
   * The node's generation body for this request.
   *
   * @param maxPromptTokens the prompt tokens the marketplace counted and reserved for (the node
   *     refuses a prompt it counts longer)
   */
  public byte[] nodeBody(String adapter, String requestId, int maxPromptTokens) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.set(chat ? "messages" : "prompt", messagesOrPrompt);
    n.put("max_tokens", maxTokens);
    n.put("max_prompt_tokens", maxPromptTokens);
    n.put("temperature", temperature);
    n.put("top_p", topP);
    if (seed != null) {
      n.put("seed", seed);
    }
    if (!stop.isEmpty()) {
      var array = n.putArray("stop");
      stop.forEach(array::add);
    }
    if (responseFormat != null) {
      n.set("response_format", responseFormat);
    }
    n.put("adapter", adapter);
    n.put("request_id", requestId);
    return n.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static String text(JsonNode body, String field, boolean required) {
    JsonNode v = body.get(field);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      if (required) {
        throw ProblemTypes.validation(field, field + " is required (a non-blank string)");
      }
      return null;
    }
    return v.asText();
  }

  private static double number(
      JsonNode body, String field, double fallback, double min, double max) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isNumber() || !(v.asDouble() >= min && v.asDouble() <= max)) {
      throw ProblemTypes.validation(
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
