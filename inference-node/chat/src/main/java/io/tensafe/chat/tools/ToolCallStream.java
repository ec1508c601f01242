package io.tensafe.chat.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads tool calls out of a model's output as it streams, in the form Qwen's chat templates ask for
 * (Hermes style): {@code <tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>}, one block
 * per call. Text outside the blocks is content; it is passed on as soon as it cannot be the start
 * of a block, so a stream is held back only while a block is open. Whitespace between and after
 * calls is dropped. A block that does not hold a JSON object with a string {@code name}, or that is
 * never closed, is passed on as content, unchanged: nothing the model wrote is lost.
 *
 * <p>One instance per answer; not thread-safe. The same reader serves whole answers ({@link #feed}
 * once, then {@link #finish}).
 */
public final class ToolCallStream {
  /** The opening tag of a call. */
  public static final String OPEN = "<tool_call>";

  /** The closing tag of a call. */
  public static final String CLOSE = "</tool_call>";

  /** The longest call block held, in chars; a longer one is passed on as content. */
  public static final int MAX_CALL_CHARS = 1 << 20;

  /** Refuses text after the block's JSON value: such a block is content, not a call. */
  private static final ObjectMapper JSON =
      com.fasterxml.jackson.databind.json.JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private final String idPrefix;
  private final StringBuilder pending = new StringBuilder();
  private boolean inCall;

  /** Chars of an open call's text already searched for {@link #CLOSE}: each is searched once. */
  private int searched;

  private int calls;

  /**
   * @param idPrefix the ids' prefix, e.g. {@code call_<request>_}; the index is appended
   */
  public ToolCallStream(String idPrefix) {
    this.idPrefix = idPrefix;
  }

  /** The events that {@code text}, appended to the output so far, completes. */
  public List<ToolCallEvent> feed(String text) {
    pending.append(text);
    List<ToolCallEvent> out = new ArrayList<>();
    while (true) {
      if (inCall) {
        int close = pending.indexOf(CLOSE, Math.max(0, searched - CLOSE.length() + 1));
        searched = pending.length();
        if (close < 0) {
          if (pending.length() > MAX_CALL_CHARS) {
            content(OPEN + pending, out);
            pending.setLength(0);
            inCall = false;
          }
          return out;
        }
        String block = pending.substring(0, close);
        pending.delete(0, close + CLOSE.length());
        inCall = false;
        ToolCallEvent.Call call = call(block);
        if (call == null) {
          content(OPEN + block + CLOSE, out);
        } else {
          out.add(call);
        }
      } else {
        int open = pending.indexOf(OPEN);
        if (open >= 0) {
          content(pending.substring(0, open), out);
          pending.delete(0, open + OPEN.length());
          inCall = true;
          searched = 0;
        } else {
          int keep = partialOpening();
          content(pending.substring(0, pending.length() - keep), out);
          pending.delete(0, pending.length() - keep);
          return out;
        }
      }
    }
  }

  /** The events of what is still held at the end of the output. */
  public List<ToolCallEvent> finish() {
    List<ToolCallEvent> out = new ArrayList<>();
    content((inCall ? OPEN : "") + pending, out);
    pending.setLength(0);
    inCall = false;
    return out;
  }

  /**
   * Chars of the input held back: the suffix of everything fed that no event has passed on yet (an
   * open call's text with its opening tag, or an ending that may open one). Everything before it
   * was passed on or dropped as whitespace between calls, so a relay bills the input less this.
   */
  public int heldChars() {
    return (inCall ? OPEN.length() : 0) + pending.length();
  }

  /** Calls read so far. */
  public int calls() {
    return calls;
  }

  /** Content is passed on, except whitespace once a call was made (between and after calls). */
  private void content(String text, List<ToolCallEvent> out) {
    if (text.isEmpty() || (calls > 0 && text.isBlank())) {
      return;
    }
    out.add(new ToolCallEvent.Content(text));
  }

  /** The longest suffix of the pending text that is a proper prefix of {@link #OPEN}. */
  private int partialOpening() {
    for (int n = Math.min(OPEN.length() - 1, pending.length()); n > 0; n--) {
      if (OPEN.startsWith(pending.substring(pending.length() - n))) {
        return n;
      }
    }
    return 0;
  }

  private ToolCallEvent.Call call(String block) {
    JsonNode parsed;
    try {
      parsed = JSON.readTree(block.strip());
    } catch (IOException e) {
      return null;
    }
    if (parsed == null || !parsed.isObject() || !parsed.path("name").isTextual()) {
      return null;
    }
    JsonNode arguments = parsed.path("arguments");
    String argumentsText =
        arguments.isTextual()
            ? arguments.asText()
            : arguments.isMissingNode() || arguments.isNull() ? "{}" : arguments.toString();
    int index = calls++;
    return new ToolCallEvent.Call(
        index, idPrefix + index, parsed.get("name").asText(), argumentsText);
  }
}
