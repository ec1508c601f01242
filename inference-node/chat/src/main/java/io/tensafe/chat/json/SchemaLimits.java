package io.tensafe.chat.json;

/**
 * The bounds on a {@code json_schema} and on the values constrained decoding produces. Each is
 * checked while the schema is read, before anything sized by it is allocated; a schema over one is
 * refused with {@link ResponseFormatException.Reason#TOO_LARGE} naming the limit.
 */
public final class SchemaLimits {
  private SchemaLimits() {}

  /** Schemas nested in schemas (properties, items), the root at depth 1. */
  public static final int MAX_SCHEMA_DEPTH = 16;

  /** Schema objects in one schema, all levels together. */
  public static final int MAX_SCHEMA_NODES = 1024;

  /** Properties one object schema declares (a candidate set is one 64-bit mask). */
  public static final int MAX_PROPERTIES = 64;

  /** Values in one {@code enum}. */
  public static final int MAX_ENUM_VALUES = 512;

  /** Chars of one property name or enum value, as JSON text. */
  public static final int MAX_LITERAL_CHARS = 256;

  /** Chars of all property names and enum values of a schema together. */
  public static final int MAX_TOTAL_LITERAL_CHARS = 64 * 1024;

  /**
   * Nesting of the generated value (objects and arrays), the root value at level 1: a container is
   * opened only where its members still fit, so every prefix can be completed.
   */
  public static final int MAX_VALUE_DEPTH = 40;

  /** Chars of one generated number ({@code -12.5e3} is 7). */
  public static final int MAX_NUMBER_CHARS = 32;

  /** Whitespace chars in a row between tokens of the generated value, so padding is finite. */
  public static final int MAX_WHITESPACE_RUN = 32;

  /** Chars of {@code json_schema.name} (OpenAI's limit). */
  public static final int MAX_NAME_CHARS = 64;
}
