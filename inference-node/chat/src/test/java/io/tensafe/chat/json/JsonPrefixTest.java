package io.tensafe.chat.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JsonPrefixTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static JsonGrammar schema(String schemaJson) throws Exception {
    return ResponseFormat.parse(
            JSON.readTree(
                "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"t\",\"schema\":"
                    + schemaJson
                    + "}}"))
        .grammar();
  }

  /** Every proper prefix of {@code text} is accepted and (for a container) not complete. */
  private static void assertValue(JsonGrammar g, String text) {
    JsonPrefix p = g.start();
    for (int i = 0; i < text.length(); i++) {
      assertTrue(p.feed(text.charAt(i)), () -> "refused at " + p + " in " + text);
    }
    assertTrue(p.complete(), text);
  }

  private static void assertRefused(JsonGrammar g, String text) {
    assertFalse(g.matches(text), text);
  }

  @Test
  void anyObject_validObjects_accepted() {
    JsonGrammar g = JsonGrammar.anyObject();
    for (String t :
        List.of(
            "{}",
            " {\"a\": 1}",
            "{\"a\":[1,-2.5e+3,0.0,true,false,null,\"x\\\"\\u00e9\\n\"],\"b\":{\"c\":{}}}",
            "{\n  \"k\" : \"v\" ,\"k\":[]\n}",
            "{\"\":-0}")) {
      assertValue(g, t);
    }
  }

  @Test
  void anyObject_invalidTexts_refused() {
    JsonGrammar g = JsonGrammar.anyObject();
    for (String t :
        List.of(
            "[]",
            "1",
            "\"s\"",
            "{\"a\":01}",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":tru}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\u0001\"}",
            "{\"a\":1.}",
            "{} ",
            "{}{}",
            "{\"a\":[1,]}")) {
      assertRefused(g, t);
    }
  }

  @Test
  void feed_afterRefusal_staysDeadUntilCopied() {
    JsonPrefix live = JsonGrammar.anyObject().start();
    assertTrue(live.feed("{\"a\""));
    JsonPrefix p = live.copy();
    assertFalse(p.feed('}'));
    assertFalse(p.feed(':'));
    assertTrue(p.dead());
    p.copyFrom(live);
    assertTrue(p.feed(":1}"));
    assertTrue(p.complete());
  }

  @Test
  void prefix_unfinishedNumberOrLiteral_incomplete() throws Exception {
    JsonGrammar n = schema("{\"type\":\"number\"}");
    assertTrue(n.matches("12"));
    assertTrue(n.matches("-0.5E-2"));
    JsonPrefix p = n.start();
    assertTrue(p.feed("1.") && !p.complete());
    assertRefused(n, "12 ");
    assertRefused(schema("{\"type\":\"integer\"}"), "1.5");
    assertRefused(schema("{\"type\":\"integer\"}"), "1e3");
    assertTrue(schema("{\"type\":\"integer\"}").matches("-42"));
  }

  @Test
  void whitespace_longRun_refused() {
    JsonGrammar g = JsonGrammar.anyObject();
    String ok = "{" + " ".repeat(SchemaLimits.MAX_WHITESPACE_RUN) + "}";
    assertTrue(g.matches(ok));
    assertRefused(g, "{" + " ".repeat(SchemaLimits.MAX_WHITESPACE_RUN + 1) + "}");
  }

  @Test
  void number_atLengthLimit_refusesMoreAndStaysCompletable() throws Exception {
    JsonGrammar g = schema("{\"type\":\"number\"}");
    String max = "1".repeat(SchemaLimits.MAX_NUMBER_CHARS);
    assertTrue(g.matches(max));
    assertRefused(g, max + "1");
    // One char before the limit, a part that needs a digit after it no longer fits.
    assertRefused(g, "1".repeat(SchemaLimits.MAX_NUMBER_CHARS - 1) + ".");
  }

  @Test
  void nesting_atDepthLimit_refusesAnotherContainer() {
    JsonGrammar g = JsonGrammar.anyObject();
    int levels = SchemaLimits.MAX_VALUE_DEPTH;
    String deep = "{\"a\":".repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
    assertTrue(g.matches(deep));
    String deeper = "{\"a\":".repeat(levels) + "{}" + "}".repeat(levels);
    assertRefused(g, deeper);
    assertTrue(g.matches("{\"a\":".repeat(levels - 1) + "{\"b\":1}" + "}".repeat(levels - 1)));
  }

  @Test
  void schema_propertiesInDeclaredOrder_optionalMayBeLeftOut() throws Exception {
    JsonGrammar g =
        schema(
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
                + "\"ab\":{\"type\":\"integer\"},\"c\":{\"type\":\"boolean\"}},"
                + "\"required\":[\"c\"],\"additionalProperties\":false}");
    assertValue(g, "{\"a\":\"x\",\"ab\":1,\"c\":true}");
    assertValue(g, "{\"ab\":1,\"c\":false}");
    assertValue(g, "{ \"c\" : true }");
    assertRefused(g, "{\"c\":true,\"a\":\"x\"}"); // out of order
    assertRefused(g, "{\"a\":\"x\"}"); // c is required
    assertRefused(g, "{\"a\":\"x\",\"a\":\"y\",\"c\":true}"); // twice
    assertRefused(g, "{\"d\":1,\"c\":true}"); // undeclared
    assertRefused(g, "{\"ab\":\"x\",\"c\":true}"); // wrong type
    assertRefused(g, "{\"c\":true,}");
  }

  @Test
  void schema_enumAndConst_onlyTheirValues() throws Exception {
    JsonGrammar g = schema("{\"enum\":[\"red\",\"re\",1,12,null]}");
    for (String t : List.of("\"red\"", "\"re\"", "1", "12", "null")) {
      assertValue(g, t);
    }
    for (String t : List.of("\"r\"", "\"reds\"", "2", "123", "true", "\"Red\"")) {
      assertRefused(g, t);
    }
    assertTrue(schema("{\"const\":\"x\\\"y\"}").matches("\"x\\\"y\""));
  }

  @Test
  void schema_typeUnionWithNull_eitherAccepted() throws Exception {
    JsonGrammar g =
        schema(
            "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":[\"string\",\"null\"]},"
                + "\"xs\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}},"
                + "\"required\":[\"n\",\"xs\"]}");
    assertValue(g, "{\"n\":null,\"xs\":[]}");
    assertValue(g, "{\"n\":\"s\",\"xs\":[1, 2.5 ,-3]}");
    assertRefused(g, "{\"n\":1,\"xs\":[]}");
    assertRefused(g, "{\"n\":null,\"xs\":[\"1\"]}");
  }

  @Test
  void schema_escapedPropertyName_matchedAsItsJsonText() throws Exception {
    JsonGrammar g =
        schema(
            "{\"type\":\"object\",\"properties\":{\"q\\\"é\":{\"type\":\"null\"}},"
                + "\"required\":[\"q\\\"é\"]}");
    assertValue(g, "{\"q\\\"é\":null}");
    assertRefused(g, "{\"q\\u0022é\":null}");
  }

  /**
   * The invariant that makes constrained decoding safe: from every accepted prefix some char goes
   * on, until the value is complete. Random walks over an alphabet of JSON's chars, picking only
   * accepted chars, always end in a complete value that parses (and has the schema's keys).
   */
  @Test
  void randomWalk_acceptedChars_alwaysReachAParsingValue() throws Exception {
    String alphabet = "{}[]\",:0123456789.-+E \\\nabcdefghijklmnopqrstuvwxyz";
    List<JsonGrammar> grammars =
        List.of(
            JsonGrammar.anyObject(),
            schema(
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                    + "\"age\":{\"type\":\"integer\"},\"tags\":{\"type\":\"array\","
                    + "\"items\":{\"enum\":[\"a\",\"b\",1.5]}},\"ok\":{\"type\":\"boolean\"}},"
                    + "\"required\":[\"name\",\"ok\"],\"additionalProperties\":false}"));
    SplittableRandom random = new SplittableRandom(7);
    for (JsonGrammar g : grammars) {
      for (int walk = 0; walk < 300; walk++) {
        JsonPrefix p = g.start();
        JsonPrefix probe = g.start();
        StringBuilder text = new StringBuilder();
        for (int step = 0; !p.complete() || random.nextInt(4) != 0; step++) {
          List<Character> next = new ArrayList<>();
          for (char c : alphabet.toCharArray()) {
            probe.copyFrom(p);
            if (probe.feed(c)) {
              next.add(c);
            }
          }
          if (next.isEmpty()) {
            break;
          }
          // Once the text is long, head for the end: the char leaving the least open, ties
          // broken towards closing chars, so walks end.
          char c = next.get(random.nextInt(next.size()));
          if (step > 200) {
            int best = Integer.MAX_VALUE;
            for (char x : next) {
              probe.copyFrom(p);
              probe.feed(x);
              int order = "}]\":0n".indexOf(x);
              int score = (probe.complete() ? 0 : probe.depth() * 100) + (order < 0 ? 50 : order);
              if (score < best) {
                best = score;
                c = x;
              }
            }
          }
          assertTrue(p.feed(c));
          text.append(c);
          assertTrue(step < 5_000, () -> "walk does not end: " + text.substring(0, 300));
        }
        assertTrue(p.complete(), () -> "dead end: " + text);
        JsonNode parsed = JSON.readTree(text.toString());
        if (g != grammars.get(0)) {
          assertTrue(parsed.has("name") && parsed.get("ok").isBoolean(), text.toString());
        } else {
          assertTrue(parsed.isObject(), text.toString());
        }
      }
    }
  }

  @Test
  void copyFrom_otherGrammar_refused() {
    JsonPrefix p = JsonGrammar.anyObject().start();
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class,
        () -> {
          JsonPrefix other = schema("{\"type\":\"object\"}").start();
          p.copyFrom(other);
        });
    assertEquals(1, 1);
  }
}
