package io.tensafe.tgsp.json;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * An immutable JSON value as {@link JsonParser} reads it and {@link CanonicalJson} writes it.
 * Objects keep their members in input order and never hold a key twice.
 */
public sealed interface JsonValue {

  /** A JSON object; {@code members} is unmodifiable and ordered as read or built. */
  record JsonObject(Map<String, JsonValue> members) implements JsonValue {
    public JsonObject {
      members = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(members));
    }
  }

  /** A JSON array; {@code elements} is unmodifiable. */
  record JsonArray(List<JsonValue> elements) implements JsonValue {
    public JsonArray {
      elements = List.copyOf(elements);
    }
  }

  /** A JSON string (any Unicode text, surrogates paired). */
  record JsonString(String value) implements JsonValue {}

  /** A JSON number, exactly as written (no rounding through {@code double}). */
  record JsonNumber(BigDecimal value) implements JsonValue {}

  /** {@code true} or {@code false}. */
  record JsonBoolean(boolean value) implements JsonValue {}

  /** {@code null}. */
  record JsonNull() implements JsonValue {}

  /** A short name of the JSON type, for error messages. */
  default String typeName() {
    return switch (this) {
      case JsonObject o -> "object";
      case JsonArray a -> "array";
      case JsonString s -> "string";
      case JsonNumber n -> "number";
      case JsonBoolean b -> "boolean";
      case JsonNull n -> "null";
    };
  }
}
