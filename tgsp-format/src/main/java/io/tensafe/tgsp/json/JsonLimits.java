package io.tensafe.tgsp.json;

/**
 * What {@link JsonParser} accepts. Every limit is checked before the value it bounds is built.
 *
 * @param maxBytes largest input, in bytes. Range: [1, 2^31 - 1].
 * @param maxDepth deepest nesting of arrays and objects. Range: [1, 256].
 * @param maxStringChars longest string (keys included), in UTF-16 chars. Range: [1, maxBytes].
 * @param maxNumberChars longest number literal, in chars; bounds BigDecimal exponents too.
 * @param maxMembers most members in one object or elements in one array.
 */
public record JsonLimits(
    int maxBytes, int maxDepth, int maxStringChars, int maxNumberChars, int maxMembers) {
  public JsonLimits {
    if (maxBytes < 1 || maxDepth < 1 || maxDepth > 256 || maxStringChars < 1) {
      throw new IllegalArgumentException("JSON limits out of range");
    }
    if (maxNumberChars < 1 || maxNumberChars > 64 || maxMembers < 1) {
      throw new IllegalArgumentException("JSON limits out of range");
    }
  }

  /** Limits for small documents: manifests, key files, adapter configs (1 MiB). */
  public static JsonLimits document() {
    return new JsonLimits(1 << 20, 32, 1 << 16, 40, 1 << 14);
  }
}
