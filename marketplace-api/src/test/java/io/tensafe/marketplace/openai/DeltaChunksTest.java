package io.tensafe.marketplace.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeltaChunksTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode envelope() {
    return JSON.createObjectNode()
        .put("id", "chatcmpl-1")
        .put("object", "chat.completion.chunk")
        .put("created", 1_700_000_000L)
        .put("model", "bank@1.0.0");
  }

  /** What serialising the whole chunk gives. */
  private static String whole(String text, boolean chat) throws Exception {
    ObjectNode c = envelope();
    ObjectNode choice = c.withArray("choices").addObject().put("index", 0);
    if (chat) {
      choice.putObject("delta").put("content", text);
    } else {
      choice.put("text", text);
    }
    choice.putNull("finish_reason");
    return "data: " + JSON.writeValueAsString(c) + "\n\n";
  }

  @Test
  void event_isByteForByteTheWholeChunk_forAwkwardText() throws Exception {
    for (boolean chat : List.of(true, false)) {
      DeltaChunks chunks = new DeltaChunks(JSON, envelope(), chat);
      for (String text :
          List.of("Hello", "", "quote \" and \\ back", "line\nbreak\t", "\u0000nul", "é漢字🙂")) {
        assertEquals(
            whole(text, chat), new String(chunks.event(text), StandardCharsets.UTF_8), text);
      }
    }
  }

  @Test
  void constructor_leavesTheEnvelopeAlone() {
    ObjectNode envelope = envelope();
    new DeltaChunks(JSON, envelope, true);
    assertEquals(envelope(), envelope);
  }
}
