package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.chat.constraint.OutputPrefix;
import io.tensafe.chat.openai.InvalidRequestException;
import io.tensafe.chat.openai.ToolOffer;
import io.tensafe.chat.tools.ToolCallGrammar;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A stand-in for a node's constrained decoder, for {@link FakeNode}: a seeded random walk through
 * the forced-call grammar that {@code tensafe-chat} compiles from a generation request's {@code
 * tools}, {@code tool_choice} and {@code parallel_tool_calls} ({@link ToolOffer}, what the real
 * node decodes under), one accepted char at a time, heading for the end once the text is long. Its
 * text is what a model forced through that grammar could write; the real decoding on a model is
 * tested in inference-node.
 */
final class ForcedCallWalk {
  private static final String ALPHABET =
      "<>/_{}[]\",: \n0123456789.-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

  private ForcedCallWalk() {}

  /** The grammar a node body forces, or null when it forces no call. */
  static ToolCallGrammar forced(JsonNode body) {
    try {
      return ToolOffer.of(
              body.get("tools"), body.get("tool_choice"), body.get("parallel_tool_calls"))
          .forced();
    } catch (InvalidRequestException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** A walk to a whole word of {@code grammar}, in pieces of up to 8 chars. */
  static List<String> pieces(ToolCallGrammar grammar, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    OutputPrefix p = grammar.start();
    OutputPrefix probe = grammar.start();
    StringBuilder text = new StringBuilder();
    for (int step = 0; !p.complete(); step++) {
      List<Character> next = new ArrayList<>();
      for (char c : ALPHABET.toCharArray()) {
        probe.copyFrom(p);
        if (probe.feed(c)) {
          next.add(c);
        }
      }
      char c = next.get(random.nextInt(next.size()));
      if (step > 60) {
        for (char x : "\"}]>".toCharArray()) {
          if (next.contains(x)) {
            c = x;
            break;
          }
        }
      }
      p.feed(c);
      text.append(c);
    }
    List<String> pieces = new ArrayList<>();
    for (int at = 0; at < text.length(); at += 8) {
      pieces.add(text.substring(at, Math.min(text.length(), at + 8)));
    }
    return pieces;
  }
}
