package io.tensafe.client.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.client.marketplace.MarketplaceApi;
import io.tensafe.client.session.BaseModelBinding;
import io.tensafe.client.session.PrivateCompletions;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelVocabulary;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local API with a Qwen3-MoE model folder and an adapter on its routed experts and attention
 * (issue 39, ADR 0034): the client follows the node's plan, every expert's groups at every step,
 * and completes privately.
 */
class LocalApiExpertsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final LocalApiKey KEY = LocalApiKey.generate(new SecureRandom());
  private static TinyModel model;
  private static QwenTokenizer tokenizer;
  private static BaseModelBinding binding;
  private static ModelVocabulary vocabulary;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31, ModelGenerator.Arch.QWEN3_MOE);
    vocabulary = ModelVocabulary.read(model.dir());
    tokenizer = QwenTokenizer.fromFile(vocabulary.tokenizerJson());
    QwenDecoder d = model.decoder();
    binding = new BaseModelBinding(model.dir(), d.shape(), d.adapterShape());
  }

  @AfterAll
  static void close() throws Exception {
    tokenizer.close();
    model.close();
  }

  @Test
  void chat_adapterOnExpertsAndAttention_completesPrivatelyWithEveryExpertsGroups()
      throws Exception {
    QwenDecoder decoder = model.decoder();
    double scale = LoraAdapter.scale(8, 4, false);
    LoraAdapter adapter =
        LoraAdapter.randomForAttention(decoder.shape(), 4, scale, 1, 7)
            .with(
                LoraAdapter.randomForExperts(
                    decoder.shape(), ModelGenerator.TINY_MOE, 4, scale, 1, 9));
    SitePlan plan = SitePlan.of(adapter, decoder.adapterShape());
    try (FakeMarketplace market = new FakeMarketplace(adapter, plan, binding.configSha256());
        LocalApi local = local(market, decoder)) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + local.port() + "/v1/chat/completions"))
                      .header("Authorization", "Bearer " + KEY.value())
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"model\":\"demo-banking\",\"messages\":[{\"role\":\"user\","
                                  + "\"content\":\"Hello\"}],\"max_tokens\":3}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      JsonNode body = JSON.readTree(r.body());
      int completion = body.path("usage").path("completion_tokens").asInt();
      assertTrue(completion >= 1, r.body());
      // Two frames per group of the plan (every expert's, routed or not) per forward pass: the
      // prompt's in one prefill chunk, then a pass per token decoded after the first.
      int perPass = 2 * plan.groups().size();
      assertEquals(0, market.frames.get() % perPass, market.frames.get() + " frames");
      assertTrue(market.frames.get() >= perPass * completion, market.frames.get() + " frames");
      assertEquals(1, market.closed.get());
    }
  }

  private static LocalApi local(FakeMarketplace market, QwenDecoder decoder) throws Exception {
    MarketplaceApi api = new MarketplaceApi(market.uri(), FakeMarketplace.KEY);
    return new LocalApi(
        0,
        KEY,
        api,
        new PrivateCompletions(
            api, decoder, tokenizer, vocabulary.endTokens(), binding, 4096, FakeMarketplace.pins()),
        vocabulary.chat());
  }
}
