package io.tensafe.chat.json;

/**
 * A {@code response_format} that cannot be honoured. The message names the field (a dotted path
 * from {@code response_format}) and, for a schema outside the supported subset, the keyword; {@link
 * #path()} gives the path alone, so an API can report it as the parameter at fault.
 */
public final class ResponseFormatException extends Exception {
  /** Why the format was refused. */
  public enum Reason {
    /** A keyword or construct outside the supported subset ({@code $ref}, {@code anyOf}, ...). */
    UNSUPPORTED,
    /** Not a well-formed format or schema: a wrong type, a missing field, a dangling name. */
    MALFORMED,
    /** Over one of the {@link SchemaLimits}: nesting, nodes, properties, enum values, text. */
    TOO_LARGE
  }

  private final Reason reason;
  private final String path;

  public ResponseFormatException(Reason reason, String path, String message) {
    super(path + ": " + message);
    this.reason = reason;
    this.path = path;
  }

  public Reason reason() {
    return reason;
  }

  /** The field at fault, e.g. {@code response_format.json_schema.schema.properties.age}. */
  public String path() {
    return path;
  }
}
