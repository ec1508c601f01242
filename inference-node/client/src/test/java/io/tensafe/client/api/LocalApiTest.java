package io.tensafe.client.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.client.marketplace.MarketplaceApi;
import io.tensafe.client.session.BaseModelBinding;
import io.tensafe.client.session.PrivateCompletions;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local endpoint on the tiny model, against a marketplace on loopback that relays frames to a
 * node session in this process: it serves only callers with its key, and answers private
 * completions for adapters on some modules, or refuses them naming the real cause.
 */
class LocalApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final LocalApiKey KEY = LocalApiKey.generate(new SecureRandom());
  private static final String CHAT =
      "{\"model\":\"demo-banking\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],"
          + "\"max_tokens\":3}";
  private static TinyModel model;
  private static QwenTokenizer tokenizer;
  private static BaseModelBinding binding;
  private static long[] endTokens;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31);
    io.tensafe.node.model.ModelVocabulary vocabulary =
        io.tensafe.node.model.ModelVocabulary.read(model.dir());
    tokenizer = QwenTokenizer.fromFile(vocabulary.tokenizerJson());
    endTokens = vocabulary.endTokens();
    QwenDecoder d = model.decoder();
    binding = new BaseModelBinding(model.dir(), d.shape(), d.adapterShape());
  }

  @AfterAll
  static void close() throws Exception {
    tokenizer.close();
    model.close();
  }

  private static LocalApi local(FakeMarketplace market) throws Exception {
    MarketplaceApi api = new MarketplaceApi(market.uri(), FakeMarketplace.KEY);
    return new LocalApi(
        0,
        KEY,
        api,
        new PrivateCompletions(
            api, model.decoder(), tokenizer, endTokens, binding, 4096, FakeMarketplace.pins()),
        io.tensafe.node.model.ModelVocabulary.read(model.dir()).chat());
  }

  private static LoraAdapter adapter(String... modules) {
    return LoraAdapter.random(
        model.decoder().shape(), List.of(modules), 4, LoraAdapter.scale(8, 4, false), 1, 7);
  }

  private static SitePlan plan(LoraAdapter adapter) {
    return SitePlan.of(adapter, model.decoder().adapterShape());
  }

  /** GET (body null) or POST {@code body} to {@code path}, with this Authorization or none. */
  private HttpResponse<String> call(LocalApi local, String path, String auth, String body)
      throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + local.port() + path));
    if (auth != null) {
      r.header("Authorization", auth);
    }
    r = body == null ? r.GET() : r.POST(HttpRequest.BodyPublishers.ofString(body));
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void requests_withoutTheKey_answer401InvalidApiKey_andAskTheMarketplaceNothing()
      throws Exception {
    LoraAdapter a = adapter("q_proj");
    try (FakeMarketplace market = new FakeMarketplace(a, plan(a), binding.configSha256());
        LocalApi local = local(market)) {
      List<HttpResponse<String>> answers = new ArrayList<>();
      answers.add(call(local, "/v1/models", null, null));
      answers.add(call(local, "/v1/models", "Bearer any-string", null));
      answers.add(call(local, "/v1/models", "Bearer " + FakeMarketplace.KEY, null));
      answers.add(call(local, "/v1/models", KEY.value(), null));
      // Refused before the body is read: not a 400 for a body that is not JSON.
      answers.add(call(local, "/v1/chat/completions", "Bearer " + KEY.value() + "x", "{"));
      for (HttpResponse<String> r : answers) {
        assertEquals(401, r.statusCode(), r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").get());
        assertEquals("Bearer", r.headers().firstValue("WWW-Authenticate").orElse(null));
        JsonNode body = JSON.readTree(r.body());
        assertEquals(
            "https://tensafe.io/problems/client/invalid_api_key", body.path("type").asText());
        assertEquals("invalid_api_key", body.path("error").path("code").asText());
        assertEquals("invalid_request_error", body.path("error").path("type").asText());
        assertTrue(body.path("error").path("message").asText().contains("OPENAI_API_KEY"));
      }
      assertEquals(List.of(), market.authorizations);
    }
  }

  @Test
  void models_withTheKey_answersTheMarketplacesList_askedWithTheMarketplaceKey() throws Exception {
    LoraAdapter a = adapter("q_proj");
    try (FakeMarketplace market = new FakeMarketplace(a, plan(a), binding.configSha256());
        LocalApi local = local(market)) {
      HttpResponse<String> r = call(local, "/v1/models", "Bearer " + KEY.value(), null);
      assertEquals(200, r.statusCode(), r.body());
      assertEquals("demo-banking", JSON.readTree(r.body()).path("data").get(0).path("id").asText());
      assertEquals(List.of("Bearer " + FakeMarketplace.KEY), market.authorizations);
    }
  }

  /** PEFT's default targets for Qwen: the node's plan has q and v, no k. */
  @Test
  void chat_adapterOnQAndVOnly_completesPrivately() throws Exception {
    LoraAdapter a = adapter("q_proj", "v_proj");
    try (FakeMarketplace market = new FakeMarketplace(a, plan(a), binding.configSha256());
        LocalApi local = local(market)) {
      HttpResponse<String> r = call(local, "/v1/chat/completions", "Bearer " + KEY.value(), CHAT);
      assertEquals(200, r.statusCode(), r.body());
      JsonNode body = JSON.readTree(r.body());
      assertEquals("assistant", body.path("choices").get(0).path("message").path("role").asText());
      assertTrue(body.path("usage").path("completion_tokens").asInt() >= 1, r.body());
      assertEquals(
          body.path("usage").path("completion_tokens"),
          body.path("tensafe").path("billed_usage").path("completion_tokens"));
      assertTrue(market.frames.get() > 0);
      assertEquals(1, market.closed.get());
    }
  }

  /**
   * ADR 0044: log-probabilities are computed here from the client's own logits, whole and streamed;
   * {@code n} above 1 is refused before the marketplace is asked anything.
   */
  @Test
  void chat_logprobsTop3_computedLocally_wholeAndStreamed_andNAbove1Refused() throws Exception {
    LoraAdapter a = adapter("q_proj", "v_proj");
    String asked =
        CHAT.substring(0, CHAT.lastIndexOf('}')) + ",\"logprobs\":true,\"top_logprobs\":3";
    try (FakeMarketplace market = new FakeMarketplace(a, plan(a), binding.configSha256());
        LocalApi local = local(market)) {
      HttpResponse<String> r =
          call(local, "/v1/chat/completions", "Bearer " + KEY.value(), asked + "}");
      assertEquals(200, r.statusCode(), r.body());
      JsonNode choice = JSON.readTree(r.body()).path("choices").get(0);
      StringBuilder tokens = new StringBuilder();
      for (JsonNode e : choice.path("logprobs").path("content")) {
        assertEquals(3, e.path("top_logprobs").size());
        assertTrue(e.path("logprob").asDouble() <= 0);
        tokens.append(e.path("token").asText());
      }
      assertEquals(choice.path("message").path("content").asText(), tokens.toString());
      assertTrue(choice.path("logprobs").path("content").size() > 0, r.body());
      HttpResponse<String> streamed =
          call(local, "/v1/chat/completions", "Bearer " + KEY.value(), asked + ",\"stream\":true}");
      assertEquals(200, streamed.statusCode());
      StringBuilder text = new StringBuilder();
      StringBuilder streamedTokens = new StringBuilder();
      for (String line : streamed.body().split("\n")) {
        if (line.startsWith("data: {")) {
          JsonNode c = JSON.readTree(line.substring(6)).path("choices").path(0);
          text.append(c.path("delta").path("content").asText(""));
          for (JsonNode e : c.path("logprobs").path("content")) {
            streamedTokens.append(e.path("token").asText());
          }
        }
      }
      assertEquals(text.toString(), streamedTokens.toString());
      int opened = market.closed.get();
      HttpResponse<String> three =
          call(
              local,
              "/v1/chat/completions",
              "Bearer " + KEY.value(),
              CHAT.substring(0, CHAT.lastIndexOf('}')) + ",\"n\":3}");
      assertEquals(400, three.statusCode());
      assertTrue(three.body().contains("n must be 1 in private mode"), three.body());
      assertEquals(opened, market.closed.get());
    }
  }

  @Test
  void chat_adapterOfAnotherBaseModel_answers409NamingTheConfigHash_beforeAnyFrame()
      throws Exception {
    LoraAdapter a = adapter("q_proj", "v_proj");
    try (FakeMarketplace market = new FakeMarketplace(a, plan(a), "0".repeat(64));
        LocalApi local = local(market)) {
      HttpResponse<String> r = call(local, "/v1/chat/completions", "Bearer " + KEY.value(), CHAT);
      assertEquals(409, r.statusCode(), r.body());
      JsonNode error = JSON.readTree(r.body()).path("error");
      assertEquals("base_model_mismatch", error.path("code").asText());
      assertTrue(error.path("message").asText().contains("config.json has SHA-256 000"));
      assertTrue(error.path("message").asText().contains("--model-dir"));
      assertEquals(0, market.frames.get());
      assertEquals(1, market.closed.get());
    }
  }

  /** A plan the decoder cannot follow is the node's fault (502), not a base-model mismatch. */
  @Test
  void chat_planOutOfTheDecodersOrder_answers502NamingIt_beforeAnyFrame() throws Exception {
    LoraAdapter a = adapter("q_proj", "o_proj");
    SitePlan inOrder = plan(a);
    List<SitePlan.Group> swapped = new ArrayList<>(inOrder.groups());
    swapped.set(0, inOrder.groups().get(1));
    swapped.set(1, inOrder.groups().get(0));
    try (FakeMarketplace market =
            new FakeMarketplace(a, new SitePlan(swapped, inOrder.rings()), binding.configSha256());
        LocalApi local = local(market)) {
      HttpResponse<String> r = call(local, "/v1/chat/completions", "Bearer " + KEY.value(), CHAT);
      assertEquals(502, r.statusCode(), r.body());
      JsonNode error = JSON.readTree(r.body()).path("error");
      assertEquals("upstream_error", error.path("code").asText());
      assertEquals("server_error", error.path("type").asText());
      assertTrue(
          error.path("message").asText().contains("model.layers.0.self_attn.q_proj is out of"),
          error.path("message").asText());
      assertFalse(error.path("message").asText().contains("base model"));
      assertEquals(0, market.frames.get());
      assertEquals(1, market.closed.get());
    }
  }
}
