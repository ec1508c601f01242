package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.gateway.HostedRelay;
import io.tensafe.marketplace.gateway.Settlement;

/**
 * The OpenAI-shaped bodies of a completion answer: the envelope ({@code id}, {@code object}, {@code
 * created}, {@code model}) of a whole answer or a stream chunk, the {@code usage} object (the
 * counts billed), and TenSafe's {@code tensafe} extension (charge, ε, route, HE counts). Stateless;
 * the field names are the stable API that clients read.
 */
final class CompletionBodies {
  private final ObjectMapper json;

  CompletionBodies(ObjectMapper json) {
    this.json = json;
  }

  ObjectNode chunk(CompletionRequest r, HostedRelay s) {
    return envelope(r, s, true);
  }

  ObjectNode envelope(CompletionRequest r, HostedRelay s, boolean chunk) {
    ObjectNode o = json.createObjectNode();
    o.put("id", (r.request().chat() ? "chatcmpl-" : "cmpl-") + s.requestId());
    o.put(
        "object",
        r.request().chat()
            ? (chunk ? "chat.completion.chunk" : "chat.completion")
            : "text_completion");
    o.put("created", s.startedAt().toEpochSecond());
    o.put("model", s.version().adapterId() + "@" + s.version().version());
    return o;
  }

  /** OpenAI's usage object: the counts billed (the marketplace's own). */
  ObjectNode usage(HostedRelay.Finished billed) {
    ObjectNode u = json.createObjectNode();
    u.put("prompt_tokens", billed.promptTokens());
    u.put("completion_tokens", billed.completionTokens());
    u.put("total_tokens", billed.promptTokens() + billed.completionTokens());
    return u;
  }

  ObjectNode tensafe(HostedRelay s, HostedRelay.Finished billed) {
    Settlement.Settled settled = billed.settled();
    JsonNode last = billed.finalEvent();
    ChargeView charge = settled.charge();
    ObjectNode t = json.createObjectNode();
    t.put("request_id", s.requestId());
    t.put("adapter", s.version().adapterId());
    t.put("version", s.version().version());
    t.put("route_reason", s.routeReason());
    t.put("node", s.node().name());
    t.put("currency", charge.currency());
    t.put("prompt_micros_per_1k_tokens", charge.promptMicrosPer1kTokens());
    t.put("completion_micros_per_1k_tokens", charge.completionMicrosPer1kTokens());
    t.put("amount_micros", charge.amountMicros());
    t.put(
        "epsilon_spent",
        settled.epsilonSpent() >= 0 ? settled.epsilonSpent() : s.reservation().epsilonSpent());
    t.put("epsilon_limit", s.reservation().epsilonLimit());
    JsonNode report = last.path("report");
    ObjectNode he = t.putObject("he");
    he.put("calls", report.path("heCalls").asLong());
    he.put("encryptions", report.path("heEncryptions").asLong());
    he.put("plaintext_products", report.path("hePlaintextProducts").asLong());
    he.put("decryptions", report.path("heDecryptions").asLong());
    he.put("ms", report.path("heMillis").asDouble());
    t.put("dp_releases", report.path("dpReleases").asLong());
    return t;
  }
}
