package io.tensafe.client.session;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.LoraAdapter;
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

  private BaseModelBinding binding() throws Exception {
    Files.writeString(dir.resolve("config.json"), "{\"model_type\":\"qwen3\"}");
    return new BaseModelBinding(dir, ModelShape.TINY);
  }

  private static SitePlan plan(ModelShape shape) {
    return SitePlan.of(LoraAdapter.randomForAttention(shape, 4, 2.0, 0.1, 1), shape);
  }

  @Test
  void theManifestsConfigHash_andThePlansWidths_mustMatchTheFolder() throws Exception {
    BaseModelBinding b = binding();
    assertEquals(
        BaseModelBinding.sha256("{\"model_type\":\"qwen3\"}".getBytes(StandardCharsets.UTF_8)),
        b.configSha256());
    assertDoesNotThrow(() -> b.check(Optional.of(b.configSha256()), plan(ModelShape.TINY)));
    assertDoesNotThrow(() -> b.check(Optional.empty(), plan(ModelShape.TINY)));
    IllegalStateException wrongHash =
        assertThrows(
            IllegalStateException.class,
            () -> b.check(Optional.of("0".repeat(64)), plan(ModelShape.TINY)));
    assertTrue(wrongHash.getMessage().contains("--model-dir"), wrongHash.getMessage());
    IllegalStateException wrongModel =
        assertThrows(
            IllegalStateException.class,
            () -> b.check(Optional.empty(), plan(ModelShape.QWEN25_1_5B)));
    assertTrue(wrongModel.getMessage().contains("rings"), wrongModel.getMessage());
    SitePlan wide =
        new SitePlan(
            List.of(
                new SitePlan.Group(
                    List.of(new SitePlan.Site("model.layers.9.self_attn.q_proj", 64, 64, 4)))),
            SitePlan.ringsOf(ModelShape.TINY));
    assertThrows(IllegalStateException.class, () -> b.check(Optional.empty(), wide));
  }
}
