package io.tensafe.tgsp.json;

import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonBoolean;
import io.tensafe.tgsp.json.JsonValue.JsonNull;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict RFC 8259 parser for untrusted input: UTF-8 only (no byte-order mark), one value with
 * optional whitespace around it, no duplicate object keys, no unpaired surrogates, and every size
 * in {@link JsonLimits} checked before the value it bounds is built. Not thread-safe; use one
 * instance per parse (or the static {@link #parse}).
 */
public final class JsonParser {
  /** Largest decimal exponent magnitude accepted, so no later conversion can blow up. */
  public static final int MAX_EXPONENT = 1000;

  private final String what;
  private final JsonLimits limits;
  private final String text;
  private int position;

  private JsonParser(String what, JsonLimits limits, String text) {
    this.what = what;
    this.limits = limits;
    this.text = text;
  }

  /**
   * Parses one JSON document.
   *
   * @param what names the document in error messages, e.g. "manifest"
   * @throws JsonSyntaxException on anything that is not strict JSON within the limits
   */
  public static JsonValue parse(String what, byte[] utf8, JsonLimits limits)
      throws JsonSyntaxException {
    if (utf8.length > limits.maxBytes()) {
      throw new JsonSyntaxException(
          what, "is " + utf8.length + " bytes, over the limit of " + limits.maxBytes(), 0);
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(utf8))
              .toString();
    } catch (CharacterCodingException e) {
      throw new JsonSyntaxException(what, "is not valid UTF-8", 0);
    }
    JsonParser parser = new JsonParser(what, limits, text);
    parser.skipWhitespace();
    JsonValue value = parser.value(1);
    parser.skipWhitespace();
    if (parser.position != text.length()) {
      throw parser.error("unexpected content after the value");
    }
    return value;
  }

  private JsonValue value(int depth) throws JsonSyntaxException {
    if (position >= text.length()) {
      throw error("unexpected end of input");
    }
    char c = text.charAt(position);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> new JsonString(string());
      case 't' -> literal("true", new JsonBoolean(true));
      case 'f' -> literal("false", new JsonBoolean(false));
      case 'n' -> literal("null", new JsonNull());
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw error("unexpected character '" + printable(c) + "'");
      }
    };
  }

  private JsonObject object(int depth) throws JsonSyntaxException {
    requireDepth(depth);
    position++; // '{'
    Map<String, JsonValue> members = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      position++;
      return new JsonObject(members);
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a string key");
      }
      int keyStart = position;
      String key = string();
      if (members.containsKey(key)) {
        position = keyStart;
        throw error("duplicate key \"" + key + "\"");
      }
      skipWhitespace();
      expect(':');
      skipWhitespace();
      if (members.size() >= limits.maxMembers()) {
        throw error("object has more than " + limits.maxMembers() + " members");
      }
      members.put(key, value(depth + 1));
      skipWhitespace();
      char c = peek();
      position++;
      if (c == '}') {
        return new JsonObject(members);
      }
      if (c != ',') {
        position--;
        throw error("expected ',' or '}'");
      }
    }
  }

  private JsonArray array(int depth) throws JsonSyntaxException {
    requireDepth(depth);
    position++; // '['
    List<JsonValue> elements = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      position++;
      return new JsonArray(elements);
    }
    while (true) {
      skipWhitespace();
      if (elements.size() >= limits.maxMembers()) {
        throw error("array has more than " + limits.maxMembers() + " elements");
      }
      elements.add(value(depth + 1));
      skipWhitespace();
      char c = peek();
      position++;
      if (c == ']') {
        return new JsonArray(elements);
      }
      if (c != ',') {
        position--;
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() throws JsonSyntaxException {
    position++; // opening quote
    StringBuilder out = new StringBuilder();
    while (true) {
      if (position >= text.length()) {
        throw error("unterminated string");
      }
      if (out.length() >= limits.maxStringChars()) {
        throw error("string longer than " + limits.maxStringChars() + " characters");
      }
      char c = text.charAt(position++);
      if (c == '"') {
        break;
      }
      if (c < 0x20) {
        position--;
        throw error("unescaped control character in string");
      }
      out.append(c == '\\' ? escape() : c);
    }
    for (int i = 0; i < out.length(); i++) {
      char c = out.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < out.length()
          && Character.isLowSurrogate(out.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw error("string holds an unpaired surrogate");
      }
    }
    return out.toString();
  }

  private char escape() throws JsonSyntaxException {
    if (position >= text.length()) {
      throw error("unterminated escape");
    }
    char c = text.charAt(position++);
    return switch (c) {
      case '"' -> '"';
      case '\\' -> '\\';
      case '/' -> '/';
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'u' -> {
        if (position + 4 > text.length()) {
          throw error("truncated \\u escape");
        }
        int code = 0;
        for (int i = 0; i < 4; i++) {
          int digit = Character.digit(text.charAt(position++), 16);
          if (digit < 0) {
            throw error("bad hex digit in \\u escape");
          }
          code = code * 16 + digit;
        }
        yield (char) code;
      }
      default -> {
        position--;
        throw error("unknown escape \\" + printable(c));
      }
    };
  }

  private JsonNumber number() throws JsonSyntaxException {
    int start = position;
    if (peek() == '-') {
      position++;
    }
    if (peek() == '0') {
      position++;
    } else if (!digits()) {
      throw error("malformed number");
    }
    if (peek() == '.') {
      position++;
      if (!digits()) {
        throw error("malformed number: no digits after '.'");
      }
    }
    if (peek() == 'e' || peek() == 'E') {
      position++;
      if (peek() == '+' || peek() == '-') {
        position++;
      }
      if (!digits()) {
        throw error("malformed number: no digits in exponent");
      }
    }
    if (position - start > limits.maxNumberChars()) {
      position = start;
      throw error("number literal longer than " + limits.maxNumberChars() + " characters");
    }
    BigDecimal value = new BigDecimal(text.substring(start, position));
    if (Math.abs((long) value.scale()) > MAX_EXPONENT) {
      position = start;
      throw error("number exponent beyond ±" + MAX_EXPONENT);
    }
    return new JsonNumber(value);
  }

  private boolean digits() {
    int start = position;
    while (position < text.length()
        && text.charAt(position) >= '0'
        && text.charAt(position) <= '9') {
      position++;
    }
    return position > start;
  }

  private JsonValue literal(String word, JsonValue value) throws JsonSyntaxException {
    if (!text.startsWith(word, position)) {
      throw error("unexpected literal");
    }
    position += word.length();
    return value;
  }

  private void requireDepth(int depth) throws JsonSyntaxException {
    if (depth > limits.maxDepth()) {
      throw error("nesting deeper than " + limits.maxDepth());
    }
  }

  private void expect(char c) throws JsonSyntaxException {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    position++;
  }

  /** The current character, or U+0000 at the end (never valid where a token is expected). */
  private char peek() {
    return position < text.length() ? text.charAt(position) : '\0';
  }

  private void skipWhitespace() {
    while (position < text.length()) {
      char c = text.charAt(position);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      position++;
    }
  }

  private JsonSyntaxException error(String problem) {
    return new JsonSyntaxException(what, problem, position);
  }

  private static String printable(char c) {
    return c < 0x20 || c > 0x7e ? String.format("U+%04X", (int) c) : String.valueOf(c);
  }
}
