package io.tensafe.chat.json;

import static io.tensafe.chat.json.ResponseFormatException.Reason.MALFORMED;
import static io.tensafe.chat.json.ResponseFormatException.Reason.UNSUPPORTED;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An OpenAI {@code response_format}, checked: {@code {"type": "text"}} (free text, the default),
 * {@code {"type": "json_object"}} (any JSON object) or {@code {"type": "json_schema",
 * "json_schema": {"name": ..., "schema": {...}, "strict": ..., "description": ...}}} with a schema
 * in the subset {@link SchemaCompiler} reads. One parser for the marketplace, the node and the
 * private client, so all three accept and refuse the same formats.
 *
 * <p>{@code strict} is accepted either way: output is always constrained to the schema.
 *
 * @param type "text", "json_object" or "json_schema"
 * @param name the schema's name; null unless json_schema
 * @param grammar the language the output must be a value of; null for text
 */
public record ResponseFormat(String type, String name, JsonGrammar grammar) {
  /** Free text: no constraint. */
  public static final ResponseFormat TEXT = new ResponseFormat("text", null, null);

  private static final String PATH = "response_format";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Set<String> SCHEMA_FIELDS =
      Set.of("name", "schema", "strict", "description");

  /** The language to constrain output to, empty for free text. */
  public Optional<JsonGrammar> constraint() {
    return Optional.ofNullable(grammar);
  }

  /**
   * Reads a {@code response_format} value; null or JSON null is {@link #TEXT}.
   *
   * @throws ResponseFormatException naming the field (and keyword) at fault
   */
  public static ResponseFormat parse(JsonNode value) throws ResponseFormatException {
    if (value == null || value.isNull()) {
      return TEXT;
    }
    if (!value.isObject() || !value.path("type").isTextual()) {
      throw new ResponseFormatException(
          MALFORMED, PATH, "response_format must be an object with a string type");
    }
    String type = value.get("type").asText();
    switch (type) {
      case "text", "json_object" -> {
        only(value, Set.of("type"));
        return type.equals("text") ? TEXT : new ResponseFormat(type, null, JsonGrammar.anyObject());
      }
      case "json_schema" -> {
        only(value, Set.of("type", "json_schema"));
        return jsonSchema(value.get("json_schema"));
      }
      default ->
          throw new ResponseFormatException(
              UNSUPPORTED,
              PATH + ".type",
              "type '" + type + "' is not supported; use text, json_object or json_schema");
    }
  }

  private static ResponseFormat jsonSchema(JsonNode js) throws ResponseFormatException {
    String at = PATH + ".json_schema";
    if (js == null || !js.isObject()) {
      throw new ResponseFormatException(MALFORMED, at, "json_schema must be an object");
    }
    for (Iterator<String> names = js.fieldNames(); names.hasNext(); ) {
      String n = names.next();
      if (!SCHEMA_FIELDS.contains(n)) {
        throw new ResponseFormatException(
            UNSUPPORTED, at + "." + n, "field '" + n + "' is not supported");
      }
    }
    JsonNode name = js.get("name");
    if (name == null || !name.isTextual() || !NAME.matcher(name.asText()).matches()) {
      throw new ResponseFormatException(
          MALFORMED,
          at + ".name",
          "name is required: 1 to "
              + SchemaLimits.MAX_NAME_CHARS
              + " of a-z, A-Z, 0-9, '_' and '-'");
    }
    JsonNode strict = js.get("strict");
    if (strict != null && !strict.isNull() && !strict.isBoolean()) {
      throw new ResponseFormatException(MALFORMED, at + ".strict", "strict must be a boolean");
    }
    JsonNode description = js.get("description");
    if (description != null && !description.isTextual()) {
      throw new ResponseFormatException(
          MALFORMED, at + ".description", "description must be a string");
    }
    JsonNode schema = js.get("schema");
    if (schema == null || schema.isNull()) {
      throw new ResponseFormatException(MALFORMED, at + ".schema", "schema is required");
    }
    return new ResponseFormat(
        "json_schema",
        name.asText(),
        SchemaCompiler.compile(schema, at + ".schema", "json_schema " + name.asText()));
  }

  private static void only(JsonNode value, Set<String> fields) throws ResponseFormatException {
    for (Iterator<String> names = value.fieldNames(); names.hasNext(); ) {
      String n = names.next();
      if (!fields.contains(n)) {
        throw new ResponseFormatException(
            UNSUPPORTED, PATH + "." + n, "field '" + n + "' is not supported here");
      }
    }
  }
}
