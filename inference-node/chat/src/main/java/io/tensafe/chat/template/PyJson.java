package io.tensafe.chat.template;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON as Hugging Face's {@code tojson} filter writes it: Python's {@code json.dumps} with {@code
 * ensure_ascii=False} (separators {@code ", "} and {@code ": "}, or {@code ","} and newlines with
 * an indent; keys in insertion order unless sorted; floats as {@code repr}). And the reverse
 * mapping from a parsed request to template values, keeping key order.
 */
final class PyJson {
  private PyJson() {}

  static String dumps(Object value, Integer indent, boolean sortKeys) {
    StringBuilder out = new StringBuilder();
    write(value, indent, sortKeys, 0, out);
    return out.toString();
  }

  private static void write(
      Object v, Integer indent, boolean sortKeys, int depth, StringBuilder out) {
    if (v == null) {
      out.append("null");
      return;
    }
    switch (v) {
      case Boolean b -> out.append(b ? "true" : "false");
      case Long l -> out.append(l);
      case Double d ->
          out.append(
              Double.isNaN(d)
                  ? "NaN"
                  : Double.isInfinite(d)
                      ? (d > 0 ? "Infinity" : "-Infinity")
                      : PyValues.floatRepr(d));
      case String s -> string(s, out);
      case List<?> list -> {
        if (list.isEmpty()) {
          out.append("[]");
          return;
        }
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          separator(i, indent, depth + 1, out);
          write(list.get(i), indent, sortKeys, depth + 1, out);
        }
        close(indent, depth, out).append(']');
      }
      case Map<?, ?> map -> {
        if (map.isEmpty()) {
          out.append("{}");
          return;
        }
        Map<?, ?> entries = sortKeys ? new TreeMap<>(map) : map;
        out.append('{');
        int i = 0;
        for (Map.Entry<?, ?> e : entries.entrySet()) {
          separator(i++, indent, depth + 1, out);
          string(PyValues.str(e.getKey()), out);
          out.append(": ");
          write(e.getValue(), indent, sortKeys, depth + 1, out);
        }
        close(indent, depth, out).append('}');
      }
      default ->
          throw new PyValues.RenderFailure(PyValues.typeName(v) + " cannot be written as JSON");
    }
  }

  private static void separator(int index, Integer indent, int depth, StringBuilder out) {
    if (index > 0) {
      out.append(indent == null ? ", " : ",");
    }
    if (indent != null) {
      out.append('\n').append(" ".repeat(indent * depth));
    }
  }

  private static StringBuilder close(Integer indent, int depth, StringBuilder out) {
    if (indent != null) {
      out.append('\n').append(" ".repeat(indent * depth));
    }
    return out;
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /** A parsed JSON value as template values: objects keep their key order. */
  static Object fromJson(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.properties().forEach(e -> map.put(e.getKey(), fromJson(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(x -> list.add(fromJson(x)));
      return list;
    }
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return node.asLong();
    }
    return node.asDouble();
  }
}
