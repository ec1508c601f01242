package io.tensafe.chat.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.json.ResponseFormatException.Reason;
import org.junit.jupiter.api.Test;

class ResponseFormatTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ResponseFormat parse(String json) throws Exception {
    return ResponseFormat.parse(JSON.readTree(json));
  }

  private static String schemaFormat(String schema) {
    return "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"answer\",\"strict\":true,"
        + "\"schema\":"
        + schema
        + "}}";
  }

  private static ResponseFormatException refused(String json) {
    return assertThrows(ResponseFormatException.class, () -> parse(json));
  }

  @Test
  void parse_textOrAbsent_noConstraint() throws Exception {
    assertTrue(parse("{\"type\":\"text\"}").constraint().isEmpty());
    assertEquals(ResponseFormat.TEXT, ResponseFormat.parse(null));
    assertEquals(ResponseFormat.TEXT, ResponseFormat.parse(JSON.nullNode()));
  }

  @Test
  void parse_jsonObject_anyObject() throws Exception {
    ResponseFormat f = parse("{\"type\":\"json_object\"}");
    assertEquals("json_object", f.type());
    assertNull(f.name());
    assertTrue(f.grammar().matches("{\"a\":[1]}"));
  }

  @Test
  void parse_jsonSchema_compilesNameAndSchema() throws Exception {
    ResponseFormat f =
        parse(
            schemaFormat(
                "{\"type\":\"object\",\"title\":\"T\",\"description\":\"d\",\"properties\":"
                    + "{\"city\":{\"type\":\"string\",\"description\":\"where\"}},"
                    + "\"required\":[\"city\"],\"additionalProperties\":false}"));
    assertEquals("answer", f.name());
    assertTrue(f.grammar().matches("{\"city\":\"Oslo\"}"));
  }

  @Test
  void parse_unsupportedKeywords_refusedByName() {
    for (String keyword :
        new String[] {
          "$ref",
          "anyOf",
          "oneOf",
          "allOf",
          "not",
          "pattern",
          "format",
          "minLength",
          "maximum",
          "minItems",
          "uniqueItems",
          "patternProperties",
          "$defs",
          "if"
        }) {
      ResponseFormatException e =
          refused(
              schemaFormat(
                  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\""
                      + keyword
                      + "\":1}}}"));
      assertEquals(Reason.UNSUPPORTED, e.reason());
      assertEquals("response_format.json_schema.schema.properties.a." + keyword, e.path());
      assertTrue(e.getMessage().contains("'" + keyword + "'"), e.getMessage());
    }
  }

  @Test
  void parse_unsupportedShapes_refusedByName() {
    assertEquals(
        "response_format.json_schema.schema.additionalProperties",
        refused(schemaFormat("{\"type\":\"object\",\"additionalProperties\":{}}")).path());
    assertEquals(
        Reason.UNSUPPORTED,
        refused(schemaFormat("{\"type\":\"array\",\"items\":[{\"type\":\"string\"}]}")).reason());
    assertEquals(Reason.UNSUPPORTED, refused(schemaFormat("true")).reason());
    assertEquals(Reason.UNSUPPORTED, refused(schemaFormat("{\"enum\":[[1]]}")).reason());
    assertEquals(Reason.UNSUPPORTED, refused("{\"type\":\"xml\"}").reason());
    assertEquals("response_format.extra", refused("{\"type\":\"json_object\",\"extra\":1}").path());
  }

  @Test
  void parse_malformed_refusedNamingTheField() {
    String[][] cases = {
      {"{\"type\":\"json_schema\"}", "response_format.json_schema"},
      {
        "{\"type\":\"json_schema\",\"json_schema\":{\"schema\":{}}}",
        "response_format.json_schema.name"
      },
      {
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"a b\",\"schema\":{}}}",
        "response_format.json_schema.name"
      },
      {
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"a\"}}",
        "response_format.json_schema.schema"
      },
      {
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"a\",\"strict\":\"yes\","
            + "\"schema\":{}}}",
        "response_format.json_schema.strict"
      },
      {schemaFormat("{\"type\":\"decimal\"}"), "response_format.json_schema.schema.type"},
      {schemaFormat("{\"type\":[]}"), "response_format.json_schema.schema.type"},
      {
        schemaFormat("{\"type\":\"object\",\"properties\":{},\"required\":[\"x\"]}"),
        "response_format.json_schema.schema.required"
      },
      {
        schemaFormat("{\"type\":\"string\",\"items\":{}}"),
        "response_format.json_schema.schema.items"
      },
      {
        schemaFormat("{\"type\":\"string\",\"properties\":{}}"),
        "response_format.json_schema.schema.properties"
      },
      {
        schemaFormat("{\"type\":\"integer\",\"enum\":[\"a\"]}"),
        "response_format.json_schema.schema.enum"
      },
      {schemaFormat("{\"enum\":[]}"), "response_format.json_schema.schema.enum"},
      {schemaFormat("\"string\""), "response_format.json_schema.schema"},
      {"[]", "response_format"},
    };
    for (String[] c : cases) {
      ResponseFormatException e = refused(c[0]);
      assertEquals(Reason.MALFORMED, e.reason(), c[0]);
      assertEquals(c[1], e.path(), c[0]);
    }
  }

  @Test
  void parse_overLimits_refusedBeforeCompiling() {
    String deep = "{\"type\":\"array\",\"items\":".repeat(SchemaLimits.MAX_SCHEMA_DEPTH) + "{}";
    deep += "}".repeat(SchemaLimits.MAX_SCHEMA_DEPTH);
    assertEquals(Reason.TOO_LARGE, refused(schemaFormat(deep)).reason());
    String atLimit =
        "{\"type\":\"array\",\"items\":".repeat(SchemaLimits.MAX_SCHEMA_DEPTH - 1)
            + "{}"
            + "}".repeat(SchemaLimits.MAX_SCHEMA_DEPTH - 1);
    org.junit.jupiter.api.Assertions.assertDoesNotThrow(() -> parse(schemaFormat(atLimit)));

    StringBuilder props = new StringBuilder("{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i <= SchemaLimits.MAX_PROPERTIES; i++) {
      props.append(i == 0 ? "" : ",").append("\"p").append(i).append("\":{}");
    }
    ResponseFormatException tooMany = refused(schemaFormat(props + "}}"));
    assertEquals(Reason.TOO_LARGE, tooMany.reason());
    assertTrue(tooMany.getMessage().contains("65 properties"), tooMany.getMessage());

    StringBuilder values = new StringBuilder("{\"enum\":[0");
    for (int i = 1; i <= SchemaLimits.MAX_ENUM_VALUES; i++) {
      values.append(',').append(i);
    }
    assertEquals(Reason.TOO_LARGE, refused(schemaFormat(values + "]}")).reason());
    assertEquals(
        Reason.TOO_LARGE,
        refused(schemaFormat("{\"const\":\"" + "x".repeat(SchemaLimits.MAX_LITERAL_CHARS) + "\"}"))
            .reason());

    // 64 objects of 60 properties: more subschemas than allowed, refused on the way.
    StringBuilder wide = new StringBuilder("{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < 60; i++) {
      wide.append(i == 0 ? "" : ",").append("\"o").append(i).append("\":{\"properties\":{");
      for (int j = 0; j < 60; j++) {
        wide.append(j == 0 ? "" : ",").append("\"p").append(j).append("\":{}");
      }
      wide.append("}}");
    }
    ResponseFormatException e = refused(schemaFormat(wide + "}}"));
    assertEquals(Reason.TOO_LARGE, e.reason());
    assertTrue(e.getMessage().contains("1024"), e.getMessage());
  }

  @Test
  void parse_schemaWithoutType_readFromItsKeywords() throws Exception {
    assertTrue(parse(schemaFormat("{\"properties\":{\"a\":{}}}")).grammar().matches("{\"a\":[]}"));
    assertTrue(parse(schemaFormat("{\"items\":{\"type\":\"null\"}}")).grammar().matches("[null]"));
    JsonGrammar any = parse(schemaFormat("{}")).grammar();
    for (String v : new String[] {"1", "\"s\"", "[]", "{}", "true", "null"}) {
      assertTrue(any.matches(v), v);
    }
    JsonNode unused = JSON.nullNode();
    assertTrue(unused.isNull());
  }
}
