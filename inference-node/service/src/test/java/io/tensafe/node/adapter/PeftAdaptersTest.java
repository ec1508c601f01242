package io.tensafe.node.adapter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.peft.BaseModelShape;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading PEFT folders against a dense model and a mixture-of-experts model (issue 23). */
class PeftAdaptersTest {
  /** Two layers, the first dense (mlp_only_layers), the second with 4 experts of width 24. */
  private static final MoeShape EXPERTS = new MoeShape(4, 2, 24, true, 1, List.of(0));

  private static final BaseModelShape MOE = ModelShape.TINY.adapterShape(EXPERTS);

  @TempDir Path dir;

  @Test
  void expertAdapters_roundTrip_withTheirPathsAndWeights() throws Exception {
    LoraAdapter adapter =
        LoraAdapter.randomForAttention(ModelShape.TINY, 4, 2.0, 0.1, 1)
            .with(LoraAdapter.randomForExperts(ModelShape.TINY, EXPERTS, 4, 2.0, 0.1, 2));
    Path peft = PeftAdapters.write(adapter, "tiny-moe", dir.resolve("peft"));
    LoraAdapter read = PeftAdapters.read(peft, MOE);
    assertEquals(adapter.sites().keySet(), read.sites().keySet());
    String down = "model.layers.1.mlp.experts.3.down_proj";
    assertEquals(24, read.sites().get(down).a()[0].length);
    assertArrayEquals(
        adapter.sites().get(down).b()[5], read.sites().get(down).b()[5], 1e-6, "F32 round trip");
  }

  @Test
  void anExpertAdapter_isRefusedByADenseModel_andADenseMlpAdapterBySparseLayers() throws Exception {
    Path experts =
        PeftAdapters.write(
            LoraAdapter.randomForExperts(ModelShape.TINY, EXPERTS, 4, 2.0, 0.1, 3),
            "tiny-moe",
            dir.resolve("experts"));
    AdapterRejectedException dense =
        assertThrows(
            AdapterRejectedException.class,
            () -> PeftAdapters.read(experts, ModelShape.TINY.adapterShape()));
    assertTrue(dense.getMessage().contains("the base model has no experts"), dense.getMessage());

    Path mlp =
        PeftAdapters.write(
            LoraAdapter.random(ModelShape.TINY, List.of("gate_proj"), 4, 2.0, 0.1, 4),
            "tiny-moe",
            dir.resolve("mlp"));
    AdapterRejectedException sparse =
        assertThrows(AdapterRejectedException.class, () -> PeftAdapters.read(mlp, MOE));
    assertTrue(
        sparse
            .getMessage()
            .contains("layers.1.mlp.gate_proj.lora_A.weight: layer 1 routes its MLP"),
        sparse.getMessage());
    assertEquals(
        List.of("model.layers.0.mlp.gate_proj", "model.layers.1.mlp.gate_proj"),
        PeftAdapters.read(mlp, ModelShape.TINY.adapterShape()).sites().keySet().stream()
            .sorted()
            .toList(),
        "the same adapter fits the dense model");
  }

  /**
   * A layer or expert number with a leading zero names no module the decoder asks for: read, the
   * site would be planned, noised and billed in private mode but never run, so it is refused.
   */
  @Test
  void zeroPaddedLayerOrExpertNumbers_areRefused() throws Exception {
    LoraAdapter.Site site =
        LoraAdapter.randomForAttention(ModelShape.TINY, 4, 2.0, 0.1, 5)
            .sites()
            .get("model.layers.1.self_attn.q_proj");
    for (String path :
        List.of("model.layers.01.self_attn.q_proj", "model.layers.1.mlp.experts.03.up_proj")) {
      Path peft =
          PeftAdapters.write(
              new LoraAdapter(java.util.Map.of(path, site)),
              "tiny-moe",
              dir.resolve(path.replace('.', '-')));
      AdapterRejectedException e =
          assertThrows(AdapterRejectedException.class, () -> PeftAdapters.read(peft, MOE));
      assertTrue(e.getMessage().contains("without leading zeros"), e.getMessage());
    }
  }
}
