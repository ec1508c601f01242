package io.tensafe.tgsp.json;

import io.tensafe.tgsp.TgspException;

/** A well-formed JSON document breaks its schema; names the field path and the rule. */
public final class JsonSchemaException extends TgspException {
  private final String path;

  public JsonSchemaException(String path, String problem) {
    super(path + ": " + problem);
    this.path = path;
  }

  /** The field, as a dotted path from the document root, e.g. "manifest.price.currency". */
  public String path() {
    return path;
  }
}
