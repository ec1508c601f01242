package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.chat.openai.InvalidRequestException;
import io.tensafe.chat.openai.OpenAiRequest;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.routing.ConversationTexts;
import io.tensafe.tgsp.routing.RoutedText;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.List;

/**
 * A {@code /v1/chat/completions} or {@code /v1/completions} body, checked by the rules the private
 * client shares ({@code tensafe-chat}'s {@link OpenAiRequest}: every field by name, no-op defaults,
 * tools), with what the marketplace adds: the prompt rendered once with the served model's chat
 * template ({@link ChatFormat}), which it counts and bills, the bound reserved from, and the
 * step-gate's texts.
 *
 * @param request the checked body: model, messages or prompt, sampling, tools, response_format
 * @param routing the texts the step-gate reads, in order (ADR 0009)
 * @param renderedPrompt the prompt text the node tokenizes: the prompt, or the messages and tools
 *     rendered with the served model's chat template; the marketplace counts and bills its tokens
 * @param promptTokenBound an upper bound on the tokens of the prompt the node will run (see {@link
 *     #promptTokenBound(String)}), computed once; range 1..{@link #MAX_PROMPT_BYTES}
 */
public record CompletionRequest(
    OpenAiRequest request, List<RoutedText> routing, String renderedPrompt, long promptTokenBound) {
  /** Tokens a request may ask for. */
  public static final int MAX_TOKENS = OpenAiRequest.MAX_TOKENS;

  /**
   * The largest rendered prompt, in UTF-8 bytes (so also the largest prompt-token bound): 1 MiB, a
   * quarter of the body limit, beyond every model context this marketplace serves.
   */
  public static final int MAX_PROMPT_BYTES = 1 << 20;

  /**
   * Checks {@code body} with the rules shared with the private client ({@link OpenAiRequest}),
   * renders its prompt with {@code format}, and bounds it; throws a 400 problem naming the first
   * thing wrong and the field, or a 413 for a prompt that renders too large.
   */
  public static CompletionRequest parse(JsonNode body, boolean chat, ChatFormat format) {
    OpenAiRequest r;
    String rendered;
    try {
      r = OpenAiRequest.parse(body, chat);
      rendered =
          r.chat() ? format.prompt(r.messagesOrPrompt(), r.tools()) : r.messagesOrPrompt().asText();
    } catch (InvalidRequestException e) {
      throw e.param() == null
          ? ProblemTypes.validation(e.getMessage())
          : ProblemTypes.validation(e.param(), e.getMessage());
    } catch (ChatTemplateException e) {
      throw ProblemTypes.validation("messages", e.getMessage());
    }
    List<RoutedText> routing =
        chat
            ? ConversationTexts.of(
                r.turns().stream()
                    .map(t -> new ConversationTexts.Message(t.role(), t.content()))
                    .toList())
            : List.of(new RoutedText("the prompt", rendered));
    long bound = promptTokenBound(rendered);
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
    return new CompletionRequest(r, routing, rendered, bound);
  }

  /**
   * An upper bound on the tokens of the prompt the node will run: the UTF-8 bytes, after NFC
   * normalisation, of the text it renders (the prompt, or the messages and tools with the model's
   * chat template). A byte-level BPE tokenizer such as Qwen's never makes more tokens than that.
   * The node is told this bound ({@code max_prompt_tokens}) and refuses a prompt above it, so
   * privacy budgets reserved from it hold whatever the tokenizer. Range: 1 to the body's size
   * limit.
   */
  static long promptTokenBound(String rendered) {
    String normalised = Normalizer.normalize(rendered, Normalizer.Form.NFC);
    return Math.max(1, normalised.getBytes(StandardCharsets.UTF_8).length);
  }

  /** What the gateway meters of this request. */
  public io.tensafe.marketplace.gateway.HostedRequest hosted() {
    return new io.tensafe.marketplace.gateway.HostedRequest(
        request.model(),
        routing,
        renderedPrompt,
        request.maxTokens(),
        request.choices(),
        request.logprobs(),
        this::nodeBody);
  }

  /**
   * The node's generation body for this request.
   *
   * @param maxPromptTokens the prompt tokens the marketplace counted and reserved for (the node
   *     refuses a prompt it counts longer)
   */
  public byte[] nodeBody(String adapter, String requestId, int maxPromptTokens) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.set(request.chat() ? "messages" : "prompt", request.messagesOrPrompt());
    if (request.tools() != null) {
      n.set("tools", request.tools());
      // The node constrains a forced choice and ends after one call without parallel calls.
      n.set("tool_choice", request.toolChoice().toJson());
      n.put("parallel_tool_calls", request.toolChoice().parallel());
    }
    n.put("max_tokens", request.maxTokens());
    if (request.choices() > 1) {
      n.put("n", request.choices()); // one prefill, n choices, each within max_tokens (ADR 0044)
    }
    if (request.logprobs() != OpenAiRequest.NO_LOGPROBS) {
      n.put("logprobs", true);
      n.put("top_logprobs", request.logprobs());
    }
    n.put("max_prompt_tokens", maxPromptTokens);
    n.put("temperature", request.temperature());
    n.put("top_p", request.topP());
    if (request.seed() != null) {
      n.put("seed", request.seed());
    }
    if (!request.stop().isEmpty()) {
      var array = n.putArray("stop");
      request.stop().forEach(array::add);
    }
    if (request.responseFormat() != null) {
      n.set("response_format", request.responseFormat());
    }
    n.put("adapter", adapter);
    n.put("request_id", requestId);
    return n.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
