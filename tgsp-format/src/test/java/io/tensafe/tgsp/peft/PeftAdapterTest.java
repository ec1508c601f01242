package io.tensafe.tgsp.peft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.Tensor;
import io.tensafe.tgsp.testing.Fixtures;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PeftAdapterTest {
  @TempDir Path dir;

  @Test
  void load_peftFolder_pairsSitesAndReadsConfig() throws Exception {
    PeftAdapter adapter =
        PeftAdapter.load(Fixtures.peftFolder(dir.resolve("p"), 3, 32, 4, DType.BF16, 1));
    assertEquals(6, adapter.sites().size());
    assertEquals(List.of("q_proj", "v_proj"), adapter.targetModules());
    assertEquals(4, adapter.config().rank());
    assertEquals(new BigDecimal("32"), adapter.config().alpha());
    assertEquals(ScalingRule.ALPHA_OVER_RANK, adapter.config().scaling());
    assertEquals(8.0, adapter.config().scalingFactor());
    assertEquals("Qwen/Qwen2.5-0.5B", adapter.config().baseModel());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          DoRA                  | {"r":4,"use_dora":true}                 | DoRA
          trained bias          | {"r":4,"bias":"lora_only"}              | bias
          modules_to_save       | {"r":4,"modules_to_save":["lm_head"]}   | modules_to_save
          per-module ranks      | {"r":4,"rank_pattern":{"q_proj":8}}     | rank_pattern
          other PEFT type       | {"peft_type":"IA3","r":4}               | IA3
          fan_in_fan_out        | {"r":4,"fan_in_fan_out":true}           | fan_in_fan_out
          """)
  void parseConfig_unsupportedFeature_isRefusedByName(String name, String json, String named) {
    UnsupportedAdapterException e =
        assertThrows(
            UnsupportedAdapterException.class,
            () -> AdapterConfig.parse(json.getBytes(StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }

  @Test
  void parseConfig_rsLora_usesSqrtScaling() throws Exception {
    AdapterConfig c =
        AdapterConfig.parse("{\"r\":16,\"lora_alpha\":8,\"use_rslora\":true}".getBytes());
    assertEquals(ScalingRule.ALPHA_OVER_SQRT_RANK, c.scaling());
    assertEquals(2.0, c.scalingFactor());
  }

  @Test
  void load_inconsistentTensors_areRefusedByName() throws Exception {
    String site = "base_model.model.model.layers.0.self_attn.q_proj";
    assertRefused(List.of(tensor(site + ".lora_A.weight", 4, 8)), "no lora_B");
    assertRefused(
        List.of(tensor(site + ".lora_A.weight", 4, 8), tensor(site + ".lora_B.weight", 8, 2)),
        "rank r = 4");
    assertRefused(
        List.of(
            tensor(site + ".lora_A.weight", 4, 8),
            tensor(site + ".lora_B.weight", 8, 4),
            tensor(site + ".lora_magnitude_vector", 1, 8)),
        "DoRA");
    assertRefused(
        List.of(
            tensor(site + ".lora_A.weight", 4, 8),
            tensor(site + ".lora_B.weight", 8, 4),
            tensor(site + ".base_layer.bias", 1, 8)),
        "bias");
  }

  private void assertRefused(List<Tensor> tensors, String named) throws Exception {
    Path folder = Files.createTempDirectory(dir, "bad");
    try (OutputStream out = Files.newOutputStream(folder.resolve(PeftAdapter.WEIGHTS_FILE))) {
      SafetensorsWriter.write(tensors, Map.of(), out);
    }
    Files.writeString(folder.resolve(PeftAdapter.CONFIG_FILE), "{\"r\":4,\"lora_alpha\":8}");
    UnsupportedAdapterException e =
        assertThrows(UnsupportedAdapterException.class, () -> PeftAdapter.load(folder));
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }

  private static Tensor tensor(String name, int rows, int columns) {
    return Tensor.of(
        name, DType.F32, List.of((long) rows, (long) columns), new double[rows * columns]);
  }

  @Test
  void reduce_exactlyLowRankDelta_keepsTheEffectiveDeltaAndAllEnergy() throws Exception {
    // B·A of rank 2 stored at rank 6: reducing to 2 must lose nothing.
    int rank = 6;
    int hidden = 20;
    java.util.SplittableRandom random = new java.util.SplittableRandom(5);
    double[] u = gaussian(random, hidden * 2);
    double[] v = gaussian(random, 2 * hidden);
    double[] b = new double[hidden * rank];
    double[] a = new double[rank * hidden];
    for (int i = 0; i < hidden; i++) {
      for (int k = 0; k < 2; k++) {
        b[i * rank + k] = u[i * 2 + k];
        a[k * hidden + i] = v[k * hidden + i];
      }
    }
    String site = "base_model.model.model.layers.0.self_attn.q_proj";
    Path folder = dir.resolve("lowrank");
    Files.createDirectories(folder);
    try (OutputStream out = Files.newOutputStream(folder.resolve(PeftAdapter.WEIGHTS_FILE))) {
      SafetensorsWriter.write(
          List.of(
              Tensor.of(site + ".lora_A.weight", DType.F64, List.of((long) rank, (long) hidden), a),
              Tensor.of(
                  site + ".lora_B.weight", DType.F64, List.of((long) hidden, (long) rank), b)),
          Map.of(),
          out);
    }
    Files.writeString(folder.resolve(PeftAdapter.CONFIG_FILE), "{\"r\":6,\"lora_alpha\":12}");
    PeftAdapter adapter = PeftAdapter.load(folder);
    try (SafetensorsFile weights = SafetensorsFile.open(adapter.weights())) {
      assertThrows(
          UnsupportedAdapterException.class, () -> RankReducer.reduce(adapter, weights, 6));
      RankReducer.Reduction reduction = RankReducer.reduce(adapter, weights, 2);
      assertEquals(1.0, reduction.energies().getFirst().retainedEnergy(), 1e-12);
      assertEquals(2, reduction.config().rank());
      double[] newA = reduction.tensors().get(0).values();
      double[] newB = reduction.tensors().get(1).values();
      double before = 12.0 / 6;
      double after = 12.0 / 2;
      for (int i = 0; i < hidden; i++) {
        for (int j = 0; j < hidden; j++) {
          double original = 0;
          for (int k = 0; k < rank; k++) {
            original += b[i * rank + k] * a[k * hidden + j];
          }
          double reduced = 0;
          for (int k = 0; k < 2; k++) {
            reduced += newB[i * 2 + k] * newA[k * hidden + j];
          }
          assertEquals(before * original, after * reduced, 1e-12);
        }
      }
    }
  }

  private static double[] gaussian(java.util.SplittableRandom random, int n) {
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = random.nextGaussian();
    }
    return x;
  }
}
