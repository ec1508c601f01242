package io.tensafe.client.session;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.peft.BaseModelShape;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client refuses a session for another base model before any frame leaves it. */
class BaseModelBindingTest {
  @TempDir Path dir;

  private BaseModelBinding binding(BaseModelShape sites) throws Exception {
    Files.writeString(dir.resolve("config.json"), "{\"model_type\":\"qwen3\"}");
    return new BaseModelBinding(dir, ModelShape.TINY, sites);
  }

  private BaseModelBinding binding() throws Exception {
    return binding(ModelShape.TINY.adapterShape());
  }

  private static SitePlan plan(ModelShape shape) {
    return SitePlan.of(LoraAdapter.randomForAttention(shape, 4, 2.0, 0.1, 1), shape.adapterShape());
  }

  /** A plan of one site, of the tiny model's rings. */
  private static SitePlan oneSite(String path, int in, int out) {
    return new SitePlan(
        List.of(new SitePlan.Group(List.of(new SitePlan.Site(path, in, out, 4)))),
        SitePlan.ringsOf(ModelShape.TINY.adapterShape()));
  }

  @Test
  void theManifestsConfigHash_andThePlansWidths_mustMatchTheFolder() throws Exception {
    BaseModelBinding b = binding();
    assertEquals(
        BaseModelBinding.sha256("{\"model_type\":\"qwen3\"}".getBytes(StandardCharsets.UTF_8)),
        b.configSha256());
    assertDoesNotThrow(() -> b.check(Optional.of(b.configSha256()), plan(ModelShape.TINY)));
    assertDoesNotThrow(() -> b.check(Optional.empty(), plan(ModelShape.TINY)));
    SitePlan qAndV =
        SitePlan.of(
            LoraAdapter.random(ModelShape.TINY, List.of("q_proj", "v_proj"), 4, 2.0, 0.1, 1),
            ModelShape.TINY.adapterShape());
    assertDoesNotThrow(() -> b.check(Optional.empty(), qAndV));
    BaseModelMismatchException wrongHash =
        assertThrows(
            BaseModelMismatchException.class,
            () -> b.check(Optional.of("0".repeat(64)), plan(ModelShape.TINY)));
    assertTrue(wrongHash.getMessage().contains("--model-dir"), wrongHash.getMessage());
    BaseModelMismatchException wrongModel =
        assertThrows(
            BaseModelMismatchException.class,
            () -> b.check(Optional.empty(), plan(ModelShape.QWEN25_1_5B)));
    assertTrue(wrongModel.getMessage().contains("rings"), wrongModel.getMessage());
    BaseModelMismatchException deep =
        assertThrows(
            BaseModelMismatchException.class,
            () -> b.check(Optional.empty(), oneSite("model.layers.9.self_attn.q_proj", 64, 64)));
    assertTrue(deep.getMessage().contains("has 2 layers"), deep.getMessage());
    BaseModelMismatchException wide =
        assertThrows(
            BaseModelMismatchException.class,
            () -> b.check(Optional.empty(), oneSite("model.layers.0.self_attn.q_proj", 64, 96)));
    assertTrue(wide.getMessage().contains("lora_B must be [64, r]"), wide.getMessage());
  }

  @Test
  void check_siteInAnotherBlock_isAMismatchNamingIt() throws Exception {
    BaseModelBinding b = binding();
    BaseModelMismatchException e =
        assertThrows(
            BaseModelMismatchException.class,
            () -> b.check(Optional.empty(), oneSite("model.layers.0.mlp.q_proj", 64, 64)));
    assertTrue(e.getMessage().contains("has no mlp.q_proj"), e.getMessage());
  }

  @Test
  void check_denseMlpSiteOnALayerOfExperts_isAMismatchNamingIt() throws Exception {
    // Layer 0 keeps a dense MLP; layer 1 routes to experts.
    BaseModelBinding b =
        binding(ModelShape.TINY.adapterShape(new MoeShape(8, 2, 32, true, 1, List.of(0))));
    assertDoesNotThrow(
        () -> b.check(Optional.empty(), oneSite("model.layers.0.mlp.gate_proj", 64, 128)));
    BaseModelMismatchException e =
        assertThrows(
            BaseModelMismatchException.class,
            () -> b.check(Optional.empty(), oneSite("model.layers.1.mlp.gate_proj", 64, 128)));
    assertTrue(e.getMessage().contains("layer 1 routes its MLP to experts"), e.getMessage());
  }
}
