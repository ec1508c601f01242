package io.tensafe.chat.json;

import static io.tensafe.chat.json.ResponseFormatException.Reason.MALFORMED;
import static io.tensafe.chat.json.ResponseFormatException.Reason.TOO_LARGE;
import static io.tensafe.chat.json.ResponseFormatException.Reason.UNSUPPORTED;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tensafe.chat.json.JsonGrammar.Node;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compiles a JSON Schema in the supported subset into a {@link JsonGrammar}, refusing every other
 * keyword by name. Each limit of {@link SchemaLimits} is checked on the input node before anything
 * sized by it is allocated, and recursion goes no deeper than {@link
 * SchemaLimits#MAX_SCHEMA_DEPTH}.
 */
final class SchemaCompiler {
  /** The keywords that shape the language. */
  static final Set<String> SUPPORTED =
      Set.of("type", "properties", "required", "additionalProperties", "items", "enum", "const");

  /** Keywords that only annotate: accepted and ignored. */
  static final Set<String> ANNOTATIONS =
      Set.of(
          "title",
          "description",
          "$schema",
          "$id",
          "$comment",
          "default",
          "examples",
          "deprecated",
          "readOnly",
          "writeOnly");

  private static final int BOOLEAN = 32;
  private static final int NULL = 64;
  private static final Map<String, Integer> TYPES =
      Map.of(
          "object", JsonGrammar.OBJECT,
          "array", JsonGrammar.ARRAY,
          "string", JsonGrammar.STRING,
          "number", JsonGrammar.NUMBER,
          "integer", JsonGrammar.INTEGER,
          "boolean", BOOLEAN,
          "null", NULL);
  private static final int ALL = 127;

  private final List<Node> nodes = new ArrayList<>();
  private int any = -1;
  private int literalChars;

  private SchemaCompiler() {}

  static JsonGrammar compile(JsonNode schema, String path, String description)
      throws ResponseFormatException {
    SchemaCompiler c = new SchemaCompiler();
    c.node(schema, path, 1);
    return new JsonGrammar(c.nodes, c.any, description);
  }

  private int node(JsonNode s, String path, int depth) throws ResponseFormatException {
    if (depth > SchemaLimits.MAX_SCHEMA_DEPTH) {
      throw new ResponseFormatException(
          TOO_LARGE,
          path,
          "schemas nested more than " + SchemaLimits.MAX_SCHEMA_DEPTH + " deep are not supported");
    }
    if (nodes.size() >= SchemaLimits.MAX_SCHEMA_NODES) {
      throw new ResponseFormatException(
          TOO_LARGE,
          path,
          "a schema of more than "
              + SchemaLimits.MAX_SCHEMA_NODES
              + " subschemas is not supported");
    }
    if (s.isBoolean()) {
      throw new ResponseFormatException(UNSUPPORTED, path, "boolean schemas are not supported");
    }
    if (!s.isObject()) {
      throw new ResponseFormatException(MALFORMED, path, "a schema must be a JSON object");
    }
    for (Iterator<String> names = s.fieldNames(); names.hasNext(); ) {
      String k = names.next();
      if (!SUPPORTED.contains(k) && !ANNOTATIONS.contains(k)) {
        throw new ResponseFormatException(
            UNSUPPORTED,
            path + "." + k,
            "keyword '"
                + k
                + "' is not supported; the supported subset is type, properties, required,"
                + " additionalProperties (a boolean), items, enum and const");
      }
    }
    int id = nodes.size();
    nodes.add(null);
    int types = types(s, path);
    String[] literals;
    if (s.has("enum") || s.has("const")) {
      literals = enumLiterals(s, types, path);
      types = 0;
    } else {
      List<String> l = new ArrayList<>();
      if ((types & BOOLEAN) != 0) {
        l.addAll(List.of("false", "true"));
      }
      if ((types & NULL) != 0) {
        l.add("null");
      }
      literals = l.stream().sorted().toArray(String[]::new);
    }
    String[] keys = null;
    int[] children = null;
    int[] nextRequired = null;
    if ((types & JsonGrammar.OBJECT) != 0) {
      Map<String, Integer> properties = properties(s, path, depth);
      Set<String> required = required(s, path, properties.keySet());
      boolean closed = additionalProperties(s, path);
      if (!properties.isEmpty() || closed) {
        keys = new String[properties.size()];
        children = new int[properties.size()];
        nextRequired = new int[properties.size() + 1];
        int i = 0;
        for (Map.Entry<String, Integer> e : properties.entrySet()) {
          String text = TextNode.valueOf(e.getKey()).toString();
          keys[i] = text.substring(1, text.length() - 1);
          children[i] = e.getValue();
          i++;
        }
        nextRequired[keys.length] = keys.length;
        List<String> names = new ArrayList<>(properties.keySet());
        for (int j = keys.length - 1; j >= 0; j--) {
          nextRequired[j] = required.contains(names.get(j)) ? j : nextRequired[j + 1];
        }
      }
      if (keys == null) {
        anyNode();
      }
    } else {
      for (String k : List.of("properties", "required", "additionalProperties")) {
        if (s.has(k)) {
          throw new ResponseFormatException(
              MALFORMED, path + "." + k, k + " needs the type object");
        }
      }
    }
    int items = -1;
    if ((types & JsonGrammar.ARRAY) != 0) {
      items = items(s, path, depth);
    } else if (s.has("items")) {
      throw new ResponseFormatException(MALFORMED, path + ".items", "items needs the type array");
    }
    nodes.set(id, new Node(types & ALL, keys, children, nextRequired, items, literals));
    return id;
  }

  private int types(JsonNode s, String path) throws ResponseFormatException {
    JsonNode t = s.get("type");
    if (t == null) {
      if (s.has("enum") || s.has("const")) {
        return ALL;
      }
      if (s.has("properties") || s.has("required") || s.has("additionalProperties")) {
        return JsonGrammar.OBJECT;
      }
      return s.has("items") ? JsonGrammar.ARRAY : ALL;
    }
    List<JsonNode> names = new ArrayList<>();
    if (t.isArray()) {
      if (t.isEmpty() || t.size() > TYPES.size()) {
        throw new ResponseFormatException(
            MALFORMED, path + ".type", "type must be a type name or 1 to 7 of them");
      }
      t.forEach(names::add);
    } else {
      names.add(t);
    }
    int types = 0;
    for (JsonNode n : names) {
      Integer bit = n.isTextual() ? TYPES.get(n.asText()) : null;
      if (bit == null) {
        throw new ResponseFormatException(
            MALFORMED, path + ".type", "unknown type " + n + "; known: " + TYPES.keySet());
      }
      types |= bit;
    }
    return types;
  }

  private String[] enumLiterals(JsonNode s, int types, String path) throws ResponseFormatException {
    if (s.has("enum") && s.has("const")) {
      throw new ResponseFormatException(MALFORMED, path, "give enum or const, not both");
    }
    String field = s.has("enum") ? "enum" : "const";
    JsonNode values = s.get(field);
    if (field.equals("enum")) {
      if (!values.isArray() || values.isEmpty()) {
        throw new ResponseFormatException(
            MALFORMED, path + ".enum", "enum must be a non-empty array");
      }
      if (values.size() > SchemaLimits.MAX_ENUM_VALUES) {
        throw new ResponseFormatException(
            TOO_LARGE,
            path + ".enum",
            "enum of "
                + values.size()
                + " values exceeds the limit of "
                + SchemaLimits.MAX_ENUM_VALUES);
      }
    } else {
      values = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode().add(values);
    }
    TreeSet<String> literals = new TreeSet<>();
    for (JsonNode v : values) {
      if (v.isContainerNode()) {
        throw new ResponseFormatException(
            UNSUPPORTED, path + "." + field, field + " values that are objects or arrays");
      }
      if (!fits(v, types)) {
        throw new ResponseFormatException(
            MALFORMED, path + "." + field, field + " value " + v + " is not of the schema's type");
      }
      literals.add(literal(v.toString(), path + "." + field));
    }
    return literals.toArray(String[]::new);
  }

  private static boolean fits(JsonNode v, int types) {
    return v.isTextual() && (types & JsonGrammar.STRING) != 0
        || v.isIntegralNumber() && (types & (JsonGrammar.INTEGER | JsonGrammar.NUMBER)) != 0
        || v.isNumber() && (types & JsonGrammar.NUMBER) != 0
        || v.isBoolean() && (types & BOOLEAN) != 0
        || v.isNull() && (types & NULL) != 0;
  }

  private String literal(String text, String path) throws ResponseFormatException {
    if (text.length() > SchemaLimits.MAX_LITERAL_CHARS) {
      throw new ResponseFormatException(
          TOO_LARGE,
          path,
          "a name or value of "
              + text.length()
              + " chars exceeds the limit of "
              + SchemaLimits.MAX_LITERAL_CHARS);
    }
    literalChars += text.length();
    if (literalChars > SchemaLimits.MAX_TOTAL_LITERAL_CHARS) {
      throw new ResponseFormatException(
          TOO_LARGE,
          path,
          "names and values exceed the limit of "
              + SchemaLimits.MAX_TOTAL_LITERAL_CHARS
              + " chars in all");
    }
    return text;
  }

  private Map<String, Integer> properties(JsonNode s, String path, int depth)
      throws ResponseFormatException {
    JsonNode p = s.get("properties");
    Map<String, Integer> out = new LinkedHashMap<>();
    if (p == null) {
      return out;
    }
    if (!p.isObject()) {
      throw new ResponseFormatException(
          MALFORMED, path + ".properties", "properties must be an object");
    }
    if (p.size() > SchemaLimits.MAX_PROPERTIES) {
      throw new ResponseFormatException(
          TOO_LARGE,
          path + ".properties",
          p.size() + " properties exceed the limit of " + SchemaLimits.MAX_PROPERTIES);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = p.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String at = path + ".properties." + e.getKey();
      literal(TextNode.valueOf(e.getKey()).toString(), at);
      out.put(e.getKey(), node(e.getValue(), at, depth + 1));
    }
    return out;
  }

  private static Set<String> required(JsonNode s, String path, Set<String> properties)
      throws ResponseFormatException {
    JsonNode r = s.get("required");
    if (r == null) {
      return Set.of();
    }
    if (!r.isArray()) {
      throw new ResponseFormatException(
          MALFORMED, path + ".required", "required must be an array of property names");
    }
    Set<String> out = new java.util.HashSet<>();
    for (JsonNode n : r) {
      if (!n.isTextual() || !properties.contains(n.asText())) {
        throw new ResponseFormatException(
            MALFORMED, path + ".required", "required names " + n + ", which is not a property");
      }
      out.add(n.asText());
    }
    return out;
  }

  /** True for {@code additionalProperties: false}. */
  private static boolean additionalProperties(JsonNode s, String path)
      throws ResponseFormatException {
    JsonNode a = s.get("additionalProperties");
    if (a == null || a.isBoolean()) {
      return a != null && !a.asBoolean();
    }
    if (a.isObject()) {
      throw new ResponseFormatException(
          UNSUPPORTED,
          path + ".additionalProperties",
          "additionalProperties as a schema is not supported (only true or false)");
    }
    throw new ResponseFormatException(
        MALFORMED, path + ".additionalProperties", "additionalProperties must be a boolean");
  }

  private int items(JsonNode s, String path, int depth) throws ResponseFormatException {
    JsonNode i = s.get("items");
    if (i == null) {
      return anyNode();
    }
    if (i.isArray()) {
      throw new ResponseFormatException(
          UNSUPPORTED, path + ".items", "items as an array (tuples) is not supported");
    }
    return node(i, path + ".items", depth + 1);
  }

  private int anyNode() {
    if (any < 0) {
      any = nodes.size();
      nodes.add(
          new Node(
              JsonGrammar.OBJECT | JsonGrammar.ARRAY | JsonGrammar.STRING | JsonGrammar.NUMBER,
              null,
              null,
              null,
              any,
              new String[] {"false", "null", "true"}));
    }
    return any;
  }
}
