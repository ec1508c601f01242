package io.tensafe.tgsp.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonParserTest {
  private static JsonValue parse(String s) throws JsonSyntaxException {
    return JsonParser.parse("test", s.getBytes(StandardCharsets.UTF_8), JsonLimits.document());
  }

  @Test
  void parse_nestedDocument_keepsValuesExactly() throws Exception {
    JsonValue v = parse(" {\"a\": [1, -2.50, 3e2, true, null], \"b\": \"x\\u00e9\\n\"} ");
    JsonObject o = (JsonObject) v;
    JsonArray a = (JsonArray) o.members().get("a");
    assertEquals(new BigDecimal("-2.50"), ((JsonNumber) a.elements().get(1)).value());
    assertEquals(new BigDecimal("3e2"), ((JsonNumber) a.elements().get(2)).value());
    assertEquals("xé\n", ((JsonString) o.members().get("b")).value());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{",
        "{\"a\":1,}",
        "[1,]",
        "{\"a\":1,\"a\":2}",
        "01",
        "1.",
        "-",
        "1e",
        "+1",
        "NaN",
        "tru",
        "\"unterminated",
        "\"bad \\x escape\"",
        "\"\\ud800 alone\"",
        "\"tab\tinside\"",
        "{} {}",
        "[1] x",
        "{'a':1}",
        "\ufeff{}"
      })
  void parse_malformed_throwsSyntaxError(String text) {
    assertThrows(JsonSyntaxException.class, () -> parse(text));
  }

  @Test
  void parse_invalidUtf8_throwsSyntaxError() {
    byte[] bytes = {'"', (byte) 0xC3, (byte) 0x28, '"'};
    assertThrows(
        JsonSyntaxException.class, () -> JsonParser.parse("t", bytes, JsonLimits.document()));
  }

  @Test
  void parse_beyondLimits_throwsBeforeBuilding() {
    JsonLimits tight = new JsonLimits(64, 3, 8, 5, 3);
    assertThrows(
        JsonSyntaxException.class, () -> JsonParser.parse("t", "[[[[1]]]]".getBytes(), tight));
    assertThrows(
        JsonSyntaxException.class, () -> JsonParser.parse("t", "\"123456789\"".getBytes(), tight));
    assertThrows(
        JsonSyntaxException.class, () -> JsonParser.parse("t", "123456".getBytes(), tight));
    assertThrows(
        JsonSyntaxException.class, () -> JsonParser.parse("t", "[1,2,3,4]".getBytes(), tight));
    assertThrows(JsonSyntaxException.class, () -> JsonParser.parse("t", new byte[65], tight));
    JsonSyntaxException e =
        assertThrows(
            JsonSyntaxException.class,
            () -> JsonParser.parse("t", "1e999999999".getBytes(), JsonLimits.document()));
    assertTrue(e.getMessage().contains("exponent"), e.getMessage());
  }

  @Test
  void encode_sortsKeysByUtf16AndEscapesMinimally() throws Exception {
    JsonValue v =
        new JsonObject(
            Map.of(
                "\u20ac", new JsonString("euro"),
                "\r", new JsonString("cr"),
                "1", new JsonArray(List.of(new JsonNumber(new BigDecimal("1.000")))),
                "\ud83d\ude00", new JsonString("\u0001\"\\/"),
                "\u00f6", new JsonString("ö")));
    String encoded = new String(CanonicalJson.encode(v), StandardCharsets.UTF_8);
    // RFC 8785 §3.2.3 orders keys by UTF-16 units: "\r" < "1" < "ö" < "€" (20AC) < "😀" (D83D).
    assertEquals(
        "{\"\\r\":\"cr\",\"1\":[1],\"ö\":\"ö\",\"€\":\"euro\",\"\ud83d\ude00\":\"\\u0001\\\"\\\\/\"}",
        encoded);
    assertEquals(encoded, new String(CanonicalJson.encode(parse(encoded)), StandardCharsets.UTF_8));
  }

  @Test
  void encode_fractionOrUnsafeInteger_isRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> CanonicalJson.encode(new JsonNumber(new BigDecimal("0.5"))));
    assertThrows(
        IllegalArgumentException.class,
        () -> CanonicalJson.encode(new JsonNumber(BigDecimal.valueOf(1L << 53))));
    assertEquals(
        "0.05",
        new String(CanonicalJson.encodeWithDecimals(new JsonNumber(new BigDecimal("0.050")))));
  }
}
