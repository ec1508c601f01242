package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.chat.json.ResponseFormat;
import io.tensafe.chat.json.ResponseFormatException;
import io.tensafe.marketplace.problem.ProblemTypes;

/**
 * A chat request's {@code response_format}, checked with the chat library's rules (the same code
 * the node and the private client run), so that a schema the node would refuse is refused here,
 * before anything is reserved: a 400 whose param is {@code response_format} and whose detail names
 * the path and keyword ({@code response_format.json_schema.schema.properties.a.pattern: keyword
 * 'pattern' is not supported ...}).
 */
final class ResponseFormats {
  private ResponseFormats() {}

  /**
   * The {@code response_format} to forward to the node: the request's value when it constrains the
   * output (json_object, json_schema); null when absent, null or text.
   */
  static JsonNode checked(JsonNode body) {
    JsonNode value = body.get("response_format");
    try {
      return ResponseFormat.parse(value).constraint().isPresent() ? value : null;
    } catch (ResponseFormatException e) {
      throw ProblemTypes.validation("response_format", e.getMessage());
    }
  }
}
