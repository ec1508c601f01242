package io.tensafe.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.chat.tools.ToolCallAnswer;
import io.tensafe.chat.tools.ToolCallEvent;
import io.tensafe.client.session.CompletionResult;
import io.tensafe.node.runtime.TokenLogprob;

/** OpenAI's chat-completion answers, whole and as stream chunks, with a {@code tensafe} object. */
final class ChatAnswers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ChatAnswers() {}

  /** An answer object's first fields. */
  private static ObjectNode head(String id, String object, long created, String model) {
    ObjectNode a = JSON.createObjectNode();
    a.put("id", id);
    a.put("object", object);
    a.put("created", created);
    a.put("model", model);
    return a;
  }

  /**
   * @param tools whether the request offered tools (then the text's calls become {@code
   *     tool_calls})
   */
  static ObjectNode whole(String id, long created, CompletionResult r, boolean tools) {
    ObjectNode a = head(id, "chat.completion", created, r.adapter() + "@" + r.version());
    ObjectNode choice = a.putArray("choices").addObject();
    choice.put("index", 0);
    String finish = r.generation().finishReason();
    if (tools) {
      ObjectNode message = ToolCallAnswer.message(r.generation().text(), id);
      choice.set("message", message);
      finish = ToolCallAnswer.finishReason(finish, message.has("tool_calls"));
    } else {
      choice.putObject("message").put("role", "assistant").put("content", r.generation().text());
    }
    if (r.generation().logprobs() != null) {
      choice.set("logprobs", logprobs(r.generation().logprobs()));
    }
    choice.put("finish_reason", finish);
    a.set("usage", usage(r));
    a.set("tensafe", tensafe(r));
    return a;
  }

  static ObjectNode chunk(String id, long created, String model, String text, String finish) {
    return chunk(id, created, model, text, finish, null);
  }

  /**
   * A content chunk, with the log-probability entries of the tokens its text starts ({@code
   * entries} null: the request asked for none).
   */
  static ObjectNode chunk(
      String id,
      long created,
      String model,
      String text,
      String finish,
      java.util.List<TokenLogprob> entries) {
    ObjectNode c = head(id, "chat.completion.chunk", created, model);
    ObjectNode choice = c.putArray("choices").addObject();
    choice.put("index", 0);
    ObjectNode delta = choice.putObject("delta");
    if (finish == null) {
      delta.put("role", "assistant").put("content", text);
      if (entries != null) {
        choice.set("logprobs", logprobs(entries));
      }
      choice.putNull("finish_reason");
    } else {
      choice.put("finish_reason", finish);
    }
    return c;
  }

  /**
   * OpenAI's {@code logprobs} object: {@code content}, one entry per token with {@code token},
   * {@code logprob}, {@code bytes} (the token's UTF-8 bytes, 0 to 255) and {@code top_logprobs} of
   * the same fields; {@code refusal} null.
   */
  static ObjectNode logprobs(java.util.List<TokenLogprob> entries) {
    ObjectNode l = JSON.createObjectNode();
    var content = l.putArray("content");
    for (TokenLogprob e : entries) {
      ObjectNode entry = content.addObject();
      entry.put("token", e.token()).put("logprob", e.logprob());
      bytes(entry.putArray("bytes"), e.bytes());
      var top = entry.putArray("top_logprobs");
      for (TokenLogprob.Alternative a : e.top()) {
        ObjectNode alt = top.addObject().put("token", a.token()).put("logprob", a.logprob());
        bytes(alt.putArray("bytes"), a.bytes());
      }
    }
    l.putNull("refusal");
    return l;
  }

  private static void bytes(com.fasterxml.jackson.databind.node.ArrayNode out, byte[] bytes) {
    for (byte b : bytes) {
      out.add(b & 0xff);
    }
  }

  /** The chunk of one tool call. */
  static ObjectNode callChunk(String id, long created, String model, ToolCallEvent.Call call) {
    ObjectNode c = head(id, "chat.completion.chunk", created, model);
    ObjectNode choice = c.putArray("choices").addObject();
    choice.put("index", 0);
    choice.set("delta", ToolCallAnswer.delta(call));
    choice.putNull("finish_reason");
    return c;
  }

  static ObjectNode usageChunk(String id, long created, CompletionResult r) {
    ObjectNode c = head(id, "chat.completion.chunk", created, r.adapter() + "@" + r.version());
    c.putArray("choices");
    c.set("usage", usage(r));
    c.set("tensafe", tensafe(r));
    return c;
  }

  /** The tokens this client ran, which the marketplace's count from the frames matches. */
  private static ObjectNode usage(CompletionResult r) {
    ObjectNode u = JSON.createObjectNode();
    u.put("prompt_tokens", r.generation().promptTokens());
    u.put("completion_tokens", r.generation().completionTokens());
    u.put("total_tokens", r.generation().promptTokens() + r.generation().completionTokens());
    return u;
  }

  private static ObjectNode tensafe(CompletionResult r) {
    ObjectNode t = JSON.createObjectNode();
    t.put("mode", "private");
    t.put("adapter", r.adapter());
    t.put("version", r.version());
    JsonNode bill = r.bill();
    t.set("billed_usage", bill.path("usage"));
    t.set("billing", bill.path("tensafe"));
    ObjectNode frames = t.putObject("frames");
    frames.put("round_trips", r.frames().roundTrips());
    frames.put("bytes_sent", r.frames().bytesSent());
    frames.put("bytes_received", r.frames().bytesReceived());
    return t;
  }
}
