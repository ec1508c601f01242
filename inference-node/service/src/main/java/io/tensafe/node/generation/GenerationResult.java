package io.tensafe.node.generation;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.TokenLogprob;
import io.tensafe.node.usage.UsageReport;
import java.util.List;
import java.util.Map;

/**
 * A finished generation, with OpenAI-style usage and the node's own report of it.
 *
 * @param text choice 0's text
 * @param finishReason the request's: "length" if any choice hit max_tokens, else "stop"
 * @param choices each choice's text, finish reason and (when asked) log-probability entries
 * @param report the usage report stored in the outbox for this request (same values)
 */
public record GenerationResult(
    @JsonProperty("request_id") String requestId,
    String text,
    @JsonProperty("finish_reason") String finishReason,
    List<Choice> choices,
    Usage usage,
    UsageReport report) {

  /** Token counts: the prompt once, the choices' completions summed. */
  public record Usage(
      @JsonProperty("prompt_tokens") int promptTokens,
      @JsonProperty("completion_tokens") int completionTokens,
      @JsonProperty("total_tokens") int totalTokens) {}

  /** One choice of the answer. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Choice(
      int index,
      String text,
      @JsonProperty("finish_reason") String finishReason,
      @JsonProperty("completion_tokens") int completionTokens,
      List<Map<String, Object>> logprobs) {}

  static GenerationResult of(ModelService.Served served) {
    Generation g = served.total();
    List<Choice> choices = new java.util.ArrayList<>();
    for (int i = 0; i < served.choices().size(); i++) {
      Generation c = served.choices().get(i);
      choices.add(
          new Choice(
              i,
              c.text(),
              c.finishReason(),
              c.completionTokens(),
              c.logprobs() == null ? null : entries(c.logprobs())));
    }
    return new GenerationResult(
        served.usage().requestId(),
        g.text(),
        g.finishReason(),
        choices,
        new Usage(g.promptTokens(), g.completionTokens(), g.promptTokens() + g.completionTokens()),
        served.usage());
  }

  /**
   * Entries in OpenAI's shape: {@code token}, {@code logprob}, {@code bytes} (the token's UTF-8
   * bytes, each 0 to 255), {@code top_logprobs} of the same fields.
   */
  static List<Map<String, Object>> entries(List<TokenLogprob> entries) {
    return entries.stream()
        .map(
            e ->
                Map.<String, Object>of(
                    "token",
                    e.token(),
                    "logprob",
                    e.logprob(),
                    "bytes",
                    unsigned(e.bytes()),
                    "top_logprobs",
                    e.top().stream()
                        .map(
                            a ->
                                Map.<String, Object>of(
                                    "token",
                                    a.token(),
                                    "logprob",
                                    a.logprob(),
                                    "bytes",
                                    unsigned(a.bytes())))
                        .toList()))
        .toList();
  }

  private static int[] unsigned(byte[] bytes) {
    int[] out = new int[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      out[i] = bytes[i] & 0xff;
    }
    return out;
  }
}
