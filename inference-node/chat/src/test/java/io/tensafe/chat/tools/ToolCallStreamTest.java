package io.tensafe.chat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCallStreamTest {
  private static final String TWO_CALLS =
      "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"
          + "\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>\n";

  /** The events of {@code text} fed in pieces of {@code size} chars, content merged. */
  private static List<ToolCallEvent> read(String text, int size) {
    ToolCallStream stream = new ToolCallStream("call_x_");
    List<ToolCallEvent> events = new ArrayList<>();
    for (int i = 0; i < text.length(); i += size) {
      events.addAll(stream.feed(text.substring(i, Math.min(text.length(), i + size))));
    }
    events.addAll(stream.finish());
    List<ToolCallEvent> merged = new ArrayList<>();
    for (ToolCallEvent e : events) {
      if (e instanceof ToolCallEvent.Content c
          && !merged.isEmpty()
          && merged.getLast() instanceof ToolCallEvent.Content before) {
        merged.set(merged.size() - 1, new ToolCallEvent.Content(before.text() + c.text()));
      } else {
        merged.add(e);
      }
    }
    return merged;
  }

  @Test
  void feed_twoCallsAfterText_givesContentThenBothCalls_whateverThePieces() {
    List<ToolCallEvent> expected =
        List.of(
            new ToolCallEvent.Content("Let me check.\n"),
            new ToolCallEvent.Call(0, "call_x_0", "get_weather", "{\"city\":\"Paris\"}"),
            new ToolCallEvent.Call(1, "call_x_1", "get_time", "{}"));
    for (int size : new int[] {1, 2, 3, 7, 11, TWO_CALLS.length()}) {
      assertEquals(expected, read(TWO_CALLS, size), "pieces of " + size);
    }
  }

  @Test
  void feed_textWithoutCalls_passesOnAtOnce_exceptAPossibleOpening() {
    ToolCallStream stream = new ToolCallStream("c");
    assertEquals(List.of(new ToolCallEvent.Content("Hello ")), stream.feed("Hello <tool"));
    assertEquals(
        List.of(new ToolCallEvent.Content("<tools are great")), stream.feed("s are great"));
    assertEquals(List.of(), stream.finish());
  }

  @Test
  void feed_malformedOrUnclosedBlocks_arePassedOnAsContentUnchanged() {
    String bad = "<tool_call>\n{not json}\n</tool_call>";
    assertEquals(List.of(new ToolCallEvent.Content(bad)), read(bad, 4));
    String noName = "<tool_call>{\"arguments\": {}}</tool_call>";
    assertEquals(List.of(new ToolCallEvent.Content(noName)), read(noName, 5));
    String unclosed = "ok <tool_call>\n{\"name\": \"f\", \"argu";
    assertEquals(List.of(new ToolCallEvent.Content(unclosed)), read(unclosed, 3));
  }

  @Test
  void feed_stringArguments_arePassedAsTheModelWroteThem() {
    String text = "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>";
    assertEquals(List.of(new ToolCallEvent.Call(0, "call_x_0", "f", "{\"a\": 1}")), read(text, 6));
  }

  // Review (ADR 0030): a node's block with text after its JSON must not become a call that drops
  // that text; the client would be billed for text it never sees.
  @Test
  void feed_blockWithTextAfterTheJson_isContentUnchanged() {
    String block = "<tool_call>{\"name\": \"f\", \"arguments\": {}} HIDDEN BILLED TEXT</tool_call>";
    assertEquals(List.of(new ToolCallEvent.Content(block)), read(block, 7));
  }

  // Review (ADR 0030): an open block fed in many pieces is scanned once, not once per piece (a
  // node sending a never-closed block in 4,096 pieces made the relay scan it 4,096 times).
  @Test
  void feed_longOpenBlockInManyPieces_takesLinearTime() {
    ToolCallStream stream = new ToolCallStream("call_x_");
    stream.feed(ToolCallStream.OPEN);
    String piece = "<".repeat(250);
    long started = System.nanoTime();
    for (int i = 0; i < 4096; i++) {
      assertEquals(List.of(), stream.feed(piece));
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertEquals(ToolCallStream.OPEN.length() + 4096 * 250, stream.heldChars());
    org.junit.jupiter.api.Assertions.assertTrue(millis < 1_000, millis + " ms");
  }

  // Review (ADR 0030): what is held is the exact suffix of the input not yet passed on, so the
  // relay can bill the rest.
  @Test
  void heldChars_isTheSuffixNotYetPassedOn() {
    ToolCallStream stream = new ToolCallStream("call_x_");
    stream.feed("Sure. <tool");
    assertEquals("<tool".length(), stream.heldChars());
    stream.feed("_call>{\"name\": \"f\"}</tool_call>\n<tool_call>{");
    assertEquals("<tool_call>{".length(), stream.heldChars());
    stream.finish();
    assertEquals(0, stream.heldChars());
  }
}
