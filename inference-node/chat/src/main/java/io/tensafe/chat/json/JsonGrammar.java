package io.tensafe.chat.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.chat.constraint.OutputLanguage;
import java.util.List;

/**
 * The language of a {@code response_format}, compiled: a table of schema nodes that {@link
 * JsonPrefix} walks one char at a time. Node 0 is the root. Immutable and thread-safe; share one
 * per request (or per schema) and start a {@link JsonPrefix} per generation.
 *
 * <p>Per node: the JSON types it admits ({@link #OBJECT} ...), for objects its properties in
 * declared order (names as JSON text without the quotes, their nodes, which are required) or none
 * for an open object whose members are any values, for arrays the items' node, and its literals:
 * the enum's values as JSON text, or {@code true}/{@code false}/{@code null} for the boolean and
 * null types, sorted (so those sharing a prefix are contiguous).
 *
 * <p>Invariant: every node admits at least one value, so every prefix {@link JsonPrefix} accepts
 * can be completed.
 */
public final class JsonGrammar implements OutputLanguage {
  static final int OBJECT = 1;
  static final int ARRAY = 2;
  static final int STRING = 4;
  static final int NUMBER = 8;
  static final int INTEGER = 16;

  /**
   * One compiled schema node; see the class comment.
   *
   * @param keys property names as JSON text without quotes, in declared order; null: an open object
   * @param children each property's node
   * @param nextRequired for each index i in [0, keys.length], the first required property at or
   *     after i, keys.length when none
   */
  record Node(
      int types, String[] keys, int[] children, int[] nextRequired, int items, String[] literals) {}

  private final Node[] nodes;

  /** The id of the any-value node (an open object's members, an array without items). */
  final int any;

  private final String description;

  JsonGrammar(List<Node> nodes, int any, String description) {
    this.nodes = nodes.toArray(Node[]::new);
    this.any = any;
    this.description = description;
  }

  Node node(int id) {
    return nodes[id];
  }

  /** The language of {@code {"type": "json_object"}}: any JSON object. */
  public static JsonGrammar anyObject() {
    return ANY_OBJECT;
  }

  private static final JsonGrammar ANY_OBJECT =
      new JsonGrammar(
          List.of(
              new Node(OBJECT, null, null, null, 1, new String[0]),
              new Node(
                  OBJECT | ARRAY | STRING | NUMBER,
                  null,
                  null,
                  null,
                  1,
                  new String[] {"false", "null", "true"})),
          1,
          "json_object");

  /**
   * The language of a JSON Schema in the subset {@link ResponseFormat} reads (a tool's {@code
   * parameters}, a json_schema's {@code schema}).
   *
   * @param path where the schema sits in the request, for errors (e.g. {@code
   *     tools[0].function.parameters})
   * @param description what the grammar is, for logs
   * @throws ResponseFormatException naming the keyword at fault, under {@code path}
   */
  public static JsonGrammar ofSchema(JsonNode schema, String path, String description)
      throws ResponseFormatException {
    return SchemaCompiler.compile(schema, path, description);
  }

  @Override
  public JsonPrefix start() {
    return new JsonPrefix(this);
  }

  /** Schema nodes compiled. */
  public int size() {
    return nodes.length;
  }

  @Override
  public String toString() {
    return description;
  }
}
