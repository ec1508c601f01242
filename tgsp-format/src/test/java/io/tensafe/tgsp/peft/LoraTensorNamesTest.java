package io.tensafe.tgsp.peft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one tensor-name → module rule (issue 51), as the node and the marketplace read it. */
class LoraTensorNamesTest {
  @Test
  void aPeftSite_isItsModulePathWithoutThePrefix() {
    assertEquals(
        Optional.of("model.layers.1.mlp.experts.3.gate_proj"),
        LoraTensorNames.modulePath("base_model.model.model.layers.1.mlp.experts.3.gate_proj"));
    assertEquals(
        Optional.of("model.layers.0.self_attn.q_proj"),
        LoraTensorNames.modulePath("model.layers.0.self_attn.q_proj"));
    assertEquals(
        "base_model.model.model.layers.0.self_attn.q_proj",
        LoraTensorNames.siteOfLoraA(
            "base_model.model.model.layers.0.self_attn.q_proj" + LoraTensorNames.LORA_A));
  }

  @Test
  void whatIsNoDecoderSite_hasNoModulePath() {
    assertTrue(LoraTensorNames.modulePath("model.layers.01.self_attn.q_proj").isEmpty());
    assertTrue(LoraTensorNames.modulePath("lm_head").isEmpty());
    assertTrue(LoraTensorNames.modulePath("base_model.model.model.embed_tokens").isEmpty());
    assertThrows(
        IllegalArgumentException.class,
        () -> LoraTensorNames.siteOfLoraA("model.layers.0.self_attn.q_proj.lora_B.weight"));
  }
}
