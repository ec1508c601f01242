package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * The server-sent event of one streamed text delta, for one request: the request's envelope and
 * choice are serialised once, so each token of choice 0 without log-probabilities costs only the
 * JSON escaping of its text. The events are byte for byte what serialising the whole chunk each
 * time would give ({@link #event(int, String, ArrayNode)} does that for the other choices and for
 * pieces with entries).
 */
final class DeltaChunks {
  private static final String MARKER = "\u0000delta\u0000";

  private final ObjectMapper json;
  private final ObjectNode envelope;
  private final boolean chat;
  private final byte[] prefix;
  private final byte[] suffix;

  /**
   * @param envelope the chunk's {@code id}, {@code object}, {@code created} and {@code model}; not
   *     modified
   * @param chat whether the text goes in {@code delta.content} (chat) or {@code text}
   */
  DeltaChunks(ObjectMapper json, ObjectNode envelope, boolean chat) {
    this.json = json;
    this.envelope = envelope.deepCopy();
    this.chat = chat;
    ObjectNode template = envelope.deepCopy();
    ObjectNode choice = template.withArray("choices").addObject().put("index", 0);
    if (chat) {
      choice.putObject("delta").put("content", MARKER);
    } else {
      choice.put("text", MARKER);
    }
    choice.putNull("finish_reason");
    String event = "data: " + write(template) + "\n\n";
    String quotedMarker = write(MARKER);
    int at = event.indexOf(quotedMarker);
    this.prefix = event.substring(0, at).getBytes(StandardCharsets.UTF_8);
    this.suffix = event.substring(at + quotedMarker.length()).getBytes(StandardCharsets.UTF_8);
  }

  /** The whole event for {@code text}, ready to write. */
  byte[] event(String text) {
    byte[] quoted = write(text).getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[prefix.length + quoted.length + suffix.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(quoted, 0, out, prefix.length, quoted.length);
    System.arraycopy(suffix, 0, out, prefix.length + quoted.length, suffix.length);
    return out;
  }

  /**
   * The whole event for {@code text} of choice {@code index}, with {@code logprobs} (OpenAI's
   * {@code content} entries; null for none) as {@code choices[0].logprobs.content}.
   */
  byte[] event(int index, String text, ArrayNode logprobs) {
    if (index == 0 && logprobs == null) {
      return event(text);
    }
    ObjectNode chunk = envelope.deepCopy();
    ObjectNode choice = chunk.withArray("choices").addObject().put("index", index);
    if (chat) {
      choice.putObject("delta").put("content", text);
    } else {
      choice.put("text", text);
    }
    if (logprobs != null) {
      ObjectNode l = choice.putObject("logprobs");
      l.set("content", logprobs);
      l.putNull("refusal");
    }
    choice.putNull("finish_reason");
    return ("data: " + write(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a chunk of strings and numbers always serialises", e);
    }
  }
}
