package io.tensafe.tgsp.peft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoraInputsTest {
  private static List<String> names(int layers, String part, String... modules) {
    List<String> names = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      for (String m : modules) {
        String site = "base_model.model.model.layers." + l + "." + part + "." + m;
        names.add(site + ".lora_A.weight");
        names.add(site + ".lora_B.weight");
      }
    }
    return names;
  }

  @Test
  void releasesPerToken_everySiteIsOneRelease_evenWhereSitesShareAnInput() {
    assertEquals(
        9, LoraInputs.releasesPerToken(names(3, "self_attn", "q_proj", "k_proj", "v_proj")));
  }

  @Test
  void releasesPerToken_everyQwenModule_isSevenSitesPerLayer() {
    List<String> all =
        new ArrayList<>(names(2, "self_attn", "q_proj", "k_proj", "v_proj", "o_proj"));
    all.addAll(names(2, "mlp", "gate_proj", "up_proj", "down_proj"));
    assertEquals(14, LoraInputs.releasesPerToken(all));
  }

  @Test
  void releasesPerToken_unknownModulesCountAlone_andNonLoraNamesAreIgnored() {
    List<String> all = new ArrayList<>(names(1, "self_attn", "q_proj", "o_proj", "rotary_x"));
    all.add("some.other.weight");
    assertEquals(3, LoraInputs.releasesPerToken(all));
    assertEquals(0, LoraInputs.releasesPerToken(List.of()));
  }

  @Test
  void releasesPerToken_experts_countTheSitesOfTheRoutedExperts() {
    List<String> all = new ArrayList<>(names(2, "self_attn", "q_proj", "k_proj", "v_proj"));
    for (int e = 0; e < 16; e++) {
      all.addAll(names(2, "mlp.experts." + e, "gate_proj", "up_proj", "down_proj"));
    }
    // Per layer: three attention sites and three sites per routed expert.
    assertEquals(2 * (3 + 3 * 4), LoraInputs.releasesPerToken(all, 4));
    assertEquals(2 * (3 + 3 * 16), LoraInputs.releasesPerToken(all), "unknown: every expert");
    List<String> fewer = new ArrayList<>(names(1, "mlp.experts.3", "down_proj"));
    fewer.addAll(names(1, "mlp.experts.9", "gate_proj", "up_proj"));
    assertEquals(3, LoraInputs.releasesPerToken(fewer, 8), "fewer adapted experts than routed");
    assertEquals(2, LoraInputs.releasesPerToken(fewer, 1), "the expert with the most sites");
    assertTrue(LoraInputs.readsExperts(fewer));
    assertFalse(LoraInputs.readsExperts(names(2, "self_attn", "q_proj")));
  }
}
