package io.tensafe.node.generation;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.chat.json.ResponseFormat;
import io.tensafe.chat.json.ResponseFormatException;
import io.tensafe.chat.openai.InvalidRequestException;
import io.tensafe.chat.openai.ToolOffer;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.node.runtime.SamplingParameters;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What a generation request asks for, read and checked before anything runs: the prompt text, the
 * sampling parameters and the request id. Every bad value is a 400 {@link NodeProblem} naming it.
 */
final class RequestInputs {
  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private RequestInputs() {}

  /**
   * The prompt text of a request: its raw prompt, or its messages (and tools) rendered with the
   * model folder's chat template.
   *
   * @param chat the model's chat format; null when its folder has none (then only prompts run)
   */
  static String prompt(GenerationRequest request, ChatFormat chat) {
    boolean hasPrompt = request.prompt() != null;
    JsonNode messages = request.messages();
    boolean hasMessages = messages != null && !messages.isNull();
    if (hasPrompt == hasMessages) {
      throw NodeProblem.validation("give exactly one of prompt and messages");
    }
    if (hasPrompt) {
      if (request.prompt().isEmpty()) {
        throw NodeProblem.validation("prompt is empty");
      }
      return request.prompt();
    }
    if (!messages.isArray() || messages.isEmpty()) {
      throw NodeProblem.validation("messages must be a non-empty array");
    }
    for (JsonNode m : messages) {
      if (!m.isObject() || !m.path("role").isTextual()) {
        throw NodeProblem.validation("every message needs a role");
      }
    }
    // Checked as the marketplace checks them; none rendered for tool_choice "none".
    JsonNode tools = tools(request).tools();
    if (chat == null) {
      throw NodeProblem.validation(
          "this node's model folder has no chat template (tokenizer_config.json): send a prompt");
    }
    try {
      return chat.prompt(messages, tools);
    } catch (ChatTemplateException e) {
      throw NodeProblem.validation(e.getMessage());
    }
  }

  /**
   * The sampling parameters of a request; {@code max_tokens} defaults to 128 and must be in [1,
   * {@code maxNewTokens}]; a forced {@code tool_choice} constrains the output to tool calls, else a
   * {@code response_format} to its JSON language; {@code parallel_tool_calls: false} allows one
   * call at most ({@link ToolOffer}, the rule the marketplace and the private client apply).
   */
  static SamplingParameters parameters(GenerationRequest r, int maxNewTokens) {
    int max = r.maxTokens() == null ? 128 : r.maxTokens();
    ToolOffer tools = tools(r);
    io.tensafe.chat.constraint.OutputLanguage constraint =
        tools.forced() != null ? tools.forced() : format(r);
    if (max < 1 || max > maxNewTokens) {
      throw NodeProblem.validation("max_tokens must be in [1, " + maxNewTokens + "], was " + max);
    }
    int logprobs = logprobs(r);
    try {
      return new SamplingParameters(
          r.temperature() == null ? 0 : r.temperature(),
          r.topK() == null ? 0 : r.topK(),
          r.topP() == null ? 1 : r.topP(),
          SamplingParameters.seedOrFresh(r.seed()),
          max,
          r.stop() == null ? List.of() : r.stop(),
          constraint,
          tools.endAfter(),
          logprobs);
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation(e.getMessage());
    }
  }

  /**
   * The alternatives per token a request asks for: {@link SamplingParameters#NO_LOGPROBS} without
   * {@code logprobs}, else {@code top_logprobs} (0 when absent), in [0, 20]; {@code top_logprobs}
   * without {@code logprobs: true} is refused, as the marketplace refuses it.
   */
  static int logprobs(GenerationRequest r) {
    boolean on = Boolean.TRUE.equals(r.logprobs());
    if (r.topLogprobs() != null && !on) {
      throw NodeProblem.validation("top_logprobs requires logprobs: true");
    }
    int top = r.topLogprobs() == null ? 0 : r.topLogprobs();
    if (top < 0 || top > io.tensafe.node.runtime.LogProbabilities.MAX_TOP) {
      throw NodeProblem.validation("top_logprobs must be in [0, 20], was " + top);
    }
    return on ? top : SamplingParameters.NO_LOGPROBS;
  }

  /** The choices a request asks for ({@code n}): 1 when absent, at most 8. */
  static int choices(GenerationRequest r) {
    int n = r.n() == null ? 1 : r.n();
    if (n < 1 || n > io.tensafe.node.runtime.TextGenerator.MAX_CHOICES) {
      throw NodeProblem.validation(
          "n must be in [1, " + io.tensafe.node.runtime.TextGenerator.MAX_CHOICES + "], was " + n);
    }
    return n;
  }

  /** The tools a request offers and what it asks of them, checked as the marketplace checks. */
  private static ToolOffer tools(GenerationRequest r) {
    try {
      return ToolOffer.of(r.tools(), r.toolChoice(), r.parallelToolCalls());
    } catch (InvalidRequestException e) {
      throw NodeProblem.validation(e.getMessage());
    }
  }

  /** The JSON language a request's response_format asks for; null for free text. */
  private static io.tensafe.chat.json.JsonGrammar format(GenerationRequest r) {
    try {
      return ResponseFormat.parse(r.responseFormat()).grammar();
    } catch (ResponseFormatException e) {
      throw NodeProblem.validation(e.getMessage());
    }
  }

  /** The request id given (a lower-case UUID), or a new random one when none was. */
  static String requestId(String given) {
    if (given == null) {
      return UUID.randomUUID().toString();
    }
    if (!UUID_TEXT.matcher(given).matches()) {
      throw NodeProblem.validation("request_id must be a lower-case UUID, was '" + given + "'");
    }
    return given;
  }
}
