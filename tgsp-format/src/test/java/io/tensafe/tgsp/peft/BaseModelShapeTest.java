package io.tensafe.tgsp.peft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BaseModelShapeTest {
  /** The demo model's config (hidden 64, 4 heads and 2 key/value heads of 16). */
  static final String TINY =
      """
      {"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
       "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
       "head_dim": 16, "rope_theta": 1000000.0, "rope_scaling": null}
      """;

  @TempDir Path dir;

  static BaseModelShape tiny() throws Exception {
    return BaseModelShape.fromConfig(TINY.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, List<Long>> shapes(Path peft) throws Exception {
    Map<String, List<Long>> shapes = new TreeMap<>();
    for (TensorInfo t : PeftAdapter.load(peft).header().tensors()) {
      shapes.put(t.name(), t.shape());
    }
    return shapes;
  }

  @Test
  void fromConfig_readsTheWidths_withQwensDefaults() throws Exception {
    BaseModelShape s = tiny();
    assertEquals(new BaseModelShape(64, 128, 2, 4, 2, 16), s);
    assertEquals(
        List.of(64, 32),
        List.of(s.linearWidths("v_proj").get()[0], s.linearWidths("v_proj").get()[1]));
    BaseModelShape noKv =
        BaseModelShape.fromConfig(
            """
            {"hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
             "num_attention_heads": 14}"""
                .getBytes(StandardCharsets.UTF_8));
    assertEquals(14, noKv.keyValueHeads());
    assertEquals(64, noKv.headDim());
  }

  @Test
  void fromConfig_aMissingOrAbsurdField_isNamed() {
    UnsupportedAdapterException e =
        assertThrows(
            UnsupportedAdapterException.class,
            () ->
                BaseModelShape.fromConfig(
                    "{\"hidden_size\": 64, \"num_attention_heads\": 4}"
                        .getBytes(StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains("intermediate_size"), e.getMessage());
    assertThrows(
        UnsupportedAdapterException.class,
        () ->
            BaseModelShape.fromConfig(
                TINY.replace("\"hidden_size\": 64", "\"hidden_size\": 1e12")
                    .getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aSquareExampleAdapter_doesNotFitTheTinyModel_namingVProj() throws Exception {
    Path peft =
        new SyntheticAdapter(2, 64, 4, 8, List.of("q_proj", "v_proj"), DType.F32, "tiny")
            .write(dir.resolve("square"), 1);
    List<String> problems = tiny().incompatibilities(shapes(peft));
    assertEquals(2, problems.size(), problems.toString()); // v_proj's B in each of two layers
    assertTrue(problems.getFirst().contains("v_proj maps 64 to 32"), problems.toString());
  }

  @Test
  void anAdapterFittingTheConfig_hasNoIncompatibilities_onEveryModule() throws Exception {
    List<String> modules =
        List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");
    Path peft =
        SyntheticAdapter.fitting(tiny(), 2, 4, 8, modules, DType.F32, "tiny")
            .write(dir.resolve("fit"), 1);
    assertEquals(List.of(), tiny().incompatibilities(shapes(peft)));
    Path deeper =
        SyntheticAdapter.fitting(tiny(), 3, 4, 8, List.of("q_proj"), DType.F32, "tiny")
            .write(dir.resolve("deep"), 1);
    assertTrue(
        tiny().incompatibilities(shapes(deeper)).getFirst().contains("has 2 layers"),
        "a layer the model does not have");
  }

  /** A tiny Qwen3-MoE: 3 layers, every second sparse but layer 3 kept dense, 4 experts of 24. */
  static final String TINY_MOE =
      """
      {"model_type": "qwen3_moe", "hidden_size": 64, "intermediate_size": 128,
       "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
       "head_dim": 16, "num_experts": 4, "num_experts_per_tok": 2,
       "moe_intermediate_size": 24, "decoder_sparse_step": 2, "mlp_only_layers": [3],
       "norm_topk_prob": true}
      """;

  private static void lora(Map<String, List<Long>> shapes, String site, long in, long out) {
    shapes.put("base_model.model.model.layers." + site + ".lora_A.weight", List.of(8L, in));
    shapes.put("base_model.model.model.layers." + site + ".lora_B.weight", List.of(out, 8L));
  }

  @Test
  void aMixtureOfExperts_acceptsExpertAdaptersOnItsSparseLayers_andNamesEveryMisfit()
      throws Exception {
    BaseModelShape moe = BaseModelShape.fromConfig(TINY_MOE.getBytes(StandardCharsets.UTF_8));
    assertEquals(new ExpertShape(4, 2, 24, 2, List.of(3)), moe.moe().orElseThrow());
    assertTrue(tiny().moe().isEmpty());
    Map<String, List<Long>> fits = new TreeMap<>();
    lora(fits, "1.self_attn.q_proj", 64, 64);
    lora(fits, "1.mlp.experts.3.gate_proj", 64, 24);
    lora(fits, "1.mlp.experts.3.up_proj", 64, 24);
    lora(fits, "1.mlp.experts.0.down_proj", 24, 64);
    lora(fits, "0.mlp.gate_proj", 64, 128); // layer 0 is dense (sparse step 2)
    lora(fits, "3.mlp.down_proj", 128, 64); // layer 3 is listed in mlp_only_layers
    assertEquals(List.of(), moe.incompatibilities(fits));

    Map<String, List<Long>> misfits = new TreeMap<>();
    lora(misfits, "1.mlp.gate_proj", 64, 128);
    lora(misfits, "0.mlp.experts.0.gate_proj", 64, 24);
    lora(misfits, "3.mlp.experts.0.up_proj", 64, 24);
    lora(misfits, "1.mlp.experts.4.up_proj", 64, 24);
    lora(misfits, "1.mlp.experts.2.down_proj", 64, 24);
    lora(misfits, "1.mlp.experts.2.q_proj", 64, 64);
    String all = String.join("\n", moe.incompatibilities(misfits));
    for (String expected :
        List.of(
            "layers.1.mlp.gate_proj.lora_A.weight: layer 1 routes its MLP to experts",
            "layers.0.mlp.experts.0.gate_proj.lora_A.weight: layer 0 keeps a dense MLP",
            "layers.3.mlp.experts.0.up_proj.lora_A.weight: layer 3 keeps a dense MLP",
            "experts.4.up_proj.lora_A.weight: the base model's layers have 4 experts",
            "experts.2.down_proj.lora_A.weight is [8, 64] but the base model's down_proj maps 24"
                + " to 64",
            "experts.2.q_proj.lora_B.weight: an expert has gate_proj, up_proj and down_proj only")) {
      assertTrue(all.contains(expected), expected + " in\n" + all);
    }
    Path synthetic =
        SyntheticAdapter.fitting(
                moe,
                4,
                4,
                8,
                List.of("q_proj", "gate_proj", "up_proj", "down_proj"),
                DType.F32,
                "tiny-moe")
            .write(dir.resolve("moe"), 1);
    Map<String, List<Long>> written = shapes(synthetic);
    assertEquals(List.of(), moe.incompatibilities(written));
    assertTrue(
        written.containsKey(
            "base_model.model.model.layers.1.mlp.experts.3.down_proj.lora_A.weight"));
    assertTrue(written.containsKey("base_model.model.model.layers.0.mlp.down_proj.lora_A.weight"));
    assertEquals(
        2 * (4 + 4 * 3 + 3 * 3),
        written.size(),
        "q in 4 layers, 4 experts × 3 in sparse layer 1, 3 dense modules in layers 0, 2 and 3");
    assertTrue(
        tiny().incompatibilities(fits).stream()
            .anyMatch(p -> p.endsWith("the base model has no experts")),
        "a dense model");
  }
}
