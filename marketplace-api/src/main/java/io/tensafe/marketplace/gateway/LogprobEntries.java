package io.tensafe.marketplace.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A node's log-probability entries for one streamed piece (ADR 0044), checked and written afresh in
 * OpenAI's shape: each entry's {@code token} a string of at most {@value #MAX_TOKEN_CHARS} chars,
 * {@code logprob} a finite number ≤ 0, exactly the {@code top_logprobs} the client asked for, each
 * of the same fields. {@code bytes} are the token's UTF-8 bytes, computed here, never copied. So
 * what reaches a client is bounded by the request's tokens whatever a node sends; the values are
 * the node's model's (the marketplace cannot recompute them). Entries never move money: billing
 * counts the relayed text only.
 */
final class LogprobEntries {
  /** The longest token text accepted: far above any token of the models served. */
  static final int MAX_TOKEN_CHARS = 256;

  private LogprobEntries() {}

  /**
   * The entries of {@code node} (an array), checked.
   *
   * @param top the {@code top_logprobs} asked for, 0 to 20
   * @throws IOException naming what is wrong (the node then failed the request)
   */
  static ArrayNode checked(JsonNode node, int top) throws IOException {
    if (node == null || !node.isArray()) {
      throw new IOException("the node sent a piece without its logprobs");
    }
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (JsonNode e : node) {
      ObjectNode entry = one(e);
      JsonNode alternatives = e.get("top_logprobs");
      if (alternatives == null || !alternatives.isArray() || alternatives.size() != top) {
        throw new IOException("the node sent an entry without its " + top + " top_logprobs");
      }
      ArrayNode topOut = entry.putArray("top_logprobs");
      for (JsonNode a : alternatives) {
        topOut.add(one(a));
      }
      out.add(entry);
    }
    return out;
  }

  private static ObjectNode one(JsonNode e) throws IOException {
    JsonNode token = e.path("token");
    JsonNode logprob = e.path("logprob");
    if (!token.isTextual() || token.asText().length() > MAX_TOKEN_CHARS) {
      throw new IOException("the node sent a logprobs entry without a token of its size");
    }
    if (!logprob.isNumber()
        || !(logprob.asDouble() <= 0)
        || Double.isInfinite(logprob.asDouble())) {
      throw new IOException("the node sent a log-probability that is not a finite number ≤ 0");
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("token", token.asText());
    out.put("logprob", logprob.asDouble());
    ArrayNode bytes = out.putArray("bytes");
    for (byte b : token.asText().getBytes(StandardCharsets.UTF_8)) {
      bytes.add(b & 0xff);
    }
    return out;
  }
}
