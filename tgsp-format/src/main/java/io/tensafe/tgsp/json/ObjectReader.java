package io.tensafe.tgsp.json;

import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonBoolean;
import io.tensafe.tgsp.json.JsonValue.JsonNull;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Typed, path-aware access to a JSON object for schema checks. Every failure is a {@link
 * JsonSchemaException} naming the full field path, the value seen and the rule.
 */
public final class ObjectReader {
  private final String path;
  private final JsonObject object;

  public ObjectReader(String path, JsonValue value) throws JsonSchemaException {
    if (!(value instanceof JsonObject o)) {
      throw new JsonSchemaException(path, "must be an object, was " + value.typeName());
    }
    this.path = path;
    this.object = o;
  }

  /** The path of this object, e.g. "manifest.price". */
  public String path() {
    return path;
  }

  /**
   * Refuses members other than {@code allowed}, so typos and unknown fields never pass silently.
   */
  public ObjectReader allowOnly(Set<String> allowed) throws JsonSchemaException {
    Set<String> unknown = new TreeSet<>(object.members().keySet());
    unknown.removeAll(allowed);
    if (!unknown.isEmpty()) {
      throw new JsonSchemaException(path, "unknown field(s) " + unknown);
    }
    return this;
  }

  public boolean has(String name) {
    return object.members().containsKey(name);
  }

  /** The member, or an error naming it as missing. */
  public JsonValue value(String name) throws JsonSchemaException {
    JsonValue v = object.members().get(name);
    if (v == null) {
      throw new JsonSchemaException(field(name), "is required");
    }
    return v;
  }

  public ObjectReader object(String name) throws JsonSchemaException {
    return new ObjectReader(field(name), value(name));
  }

  public Optional<ObjectReader> optionalObject(String name) throws JsonSchemaException {
    JsonValue v = object.members().get(name);
    return v == null || v instanceof JsonNull
        ? Optional.empty()
        : Optional.of(new ObjectReader(field(name), v));
  }

  public String string(String name) throws JsonSchemaException {
    if (!(value(name) instanceof JsonString s)) {
      throw typeError(name, "a string");
    }
    return s.value();
  }

  public Optional<String> optionalString(String name) throws JsonSchemaException {
    JsonValue v = object.members().get(name);
    return v == null || v instanceof JsonNull ? Optional.empty() : Optional.of(string(name));
  }

  /** A string that matches {@code pattern} in full. */
  public String string(String name, Pattern pattern, String rule) throws JsonSchemaException {
    String s = string(name);
    if (!pattern.matcher(s).matches()) {
      throw new JsonSchemaException(field(name), "\"" + clip(s) + "\" is not " + rule);
    }
    return s;
  }

  public boolean bool(String name) throws JsonSchemaException {
    if (!(value(name) instanceof JsonBoolean b)) {
      throw typeError(name, "a boolean");
    }
    return b.value();
  }

  /** An integer in [min, max]. */
  public long integer(String name, long min, long max) throws JsonSchemaException {
    if (!(value(name) instanceof JsonNumber n)) {
      throw typeError(name, "an integer");
    }
    return integerIn(field(name), n.value(), min, max);
  }

  /** A JSON number of any form (for foreign documents such as PEFT configs). */
  public BigDecimal number(String name) throws JsonSchemaException {
    if (!(value(name) instanceof JsonNumber n)) {
      throw typeError(name, "a number");
    }
    return n.value();
  }

  public List<JsonValue> array(String name, int maxElements) throws JsonSchemaException {
    if (!(value(name) instanceof JsonArray a)) {
      throw typeError(name, "an array");
    }
    if (a.elements().size() > maxElements) {
      throw new JsonSchemaException(
          field(name),
          "has " + a.elements().size() + " elements, over the limit of " + maxElements);
    }
    return a.elements();
  }

  public List<String> stringList(String name, int maxElements) throws JsonSchemaException {
    List<String> out = new ArrayList<>();
    List<JsonValue> elements = array(name, maxElements);
    for (int i = 0; i < elements.size(); i++) {
      if (!(elements.get(i) instanceof JsonString s)) {
        throw new JsonSchemaException(field(name) + "[" + i + "]", "must be a string");
      }
      out.add(s.value());
    }
    return out;
  }

  /** Checks that {@code value} is an integer in [min, max], naming {@code path} if not. */
  public static long integerIn(String path, BigDecimal value, long min, long max)
      throws JsonSchemaException {
    BigDecimal stripped = value.stripTrailingZeros();
    if (stripped.scale() > 0) {
      throw new JsonSchemaException(path, value + " is not an integer");
    }
    if (stripped.compareTo(BigDecimal.valueOf(min)) < 0
        || stripped.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new JsonSchemaException(path, value + " is outside [" + min + ", " + max + "]");
    }
    return stripped.longValueExact();
  }

  public String field(String name) {
    return path + "." + name;
  }

  private JsonSchemaException typeError(String name, String expected) {
    JsonValue v = object.members().get(name);
    return new JsonSchemaException(
        field(name), "must be " + expected + ", was " + (v == null ? "missing" : v.typeName()));
  }

  private static String clip(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
