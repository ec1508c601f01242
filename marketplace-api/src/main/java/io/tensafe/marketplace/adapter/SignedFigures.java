package io.tensafe.marketplace.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The figures a package's creator signed about its DP policy, read from the stored canonical
 * manifest as JSON text ({@link VersionView}, {@code /v1/models}): the marketplace shows them as
 * signed and never measures them (it cannot read the weights; ADR 0035).
 */
final class SignedFigures {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SignedFigures() {}

  /** The manifest's {@code dp_policy} object as JSON text. */
  static String dpPolicy(String manifest) {
    return member(manifest, "dp_policy");
  }

  /** The manifest's {@code measured_effect} object as JSON text, or null when it has none. */
  static String measuredEffect(String manifest) {
    return member(manifest, "measured_effect");
  }

  private static String member(String manifest, String name) {
    try {
      JsonNode value = JSON.readTree(manifest).get(name);
      return value == null || value.isNull() ? null : value.toString();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a stored manifest is not JSON", e);
    }
  }
}
