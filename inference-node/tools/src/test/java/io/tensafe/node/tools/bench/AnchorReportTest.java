package io.tensafe.node.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.tools.bench.TorchAnchor.Held;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The anchors' JSON: its documented field names, its ratios, and what "torch absent" prints. */
class AnchorReportTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TokenRates rates(double prefillSeconds, double decodeSeconds, long... greedy) {
    List<Long> tokens = java.util.Arrays.stream(greedy).boxed().toList();
    return new TokenRates(128, prefillSeconds, 8, decodeSeconds, tokens);
  }

  private static AnchorReport report(TorchAnchor.Result torch) {
    return new AnchorReport(
        "qwen2.5-1.5b",
        28,
        2,
        16,
        "vector, 16 lanes",
        Map.of(Held.BF16, rates(4, 2, 1, 2, 3), Held.F32, rates(2, 4, 1, 2, 3)),
        torch,
        Map.of(
            Held.BF16, DecodeRoofline.of(ModelShape.QWEN25_1_5B, 2, 30),
            Held.F32, DecodeRoofline.of(ModelShape.QWEN25_1_5B, 4, 30)),
        100,
        DecodeRoofline.layerValues(ModelShape.QWEN25_1_5B),
        new AnchorReport.Int8(rates(8, 1, 1, 2, 4), 3e-7, 0.012));
  }

  @Test
  void json_torchPresent_ratiosAreNodeOverAnchor() throws Exception {
    TorchAnchor.Result torch =
        new TorchAnchor.Result(
            true,
            "1.13.1",
            "openblas-pthread",
            "PASSIVE",
            Map.of(Held.BF16, rates(2, 1, 1, 2, 9), Held.F32, rates(8, 8, 1, 2, 3)));
    JsonNode j = JSON.readTree(report(torch).json());
    assertEquals(512, j.get("vector_bits").asInt());
    assertEquals(2, j.get("threads").asInt());
    assertEquals("present", j.get("torch").asText());
    assertEquals(4.0, j.get("node_bf16_decode_tokens_per_s").asDouble());
    assertEquals(32.0, j.get("node_bf16_prefill_tokens_per_s").asDouble());
    assertEquals(8.0, j.get("torch_bf16_decode_tokens_per_s").asDouble());
    assertEquals(64.0, j.get("torch_bf16_prefill_tokens_per_s").asDouble());
    assertEquals(0.5, j.get("node_over_torch_bf16_decode").asDouble());
    assertEquals(0.5, j.get("node_over_torch_bf16_prefill").asDouble());
    assertEquals(2.0, j.get("node_over_torch_f32_decode").asDouble());
    assertEquals(4.0, j.get("node_over_torch_f32_prefill").asDouble());
    assertEquals(2, j.get("greedy_tokens_equal_bf16").asInt());
    assertEquals(3, j.get("greedy_tokens_equal_f32").asInt());
    assertEquals(30.0, j.get("stream_read_gb_per_s").asDouble());
    double roofline = 30e9 / 3_087_138_816L;
    assertEquals(roofline, j.get("roofline_bf16_decode_tokens_per_s").asDouble(), 1e-3);
    assertEquals(4 / roofline, j.get("node_over_roofline_bf16_decode").asDouble(), 1e-3);
    assertEquals(6_174_277_632L, j.get("weight_bytes_per_token_f32").asLong());
    // 28 layers of 2·1536·1536 + 2·1536·256 + 3·1536·8960 multiply-adds per prompt token
    long macs = 28L * (2 * 1536 * 1536 + 2 * 1536 * 256 + 3 * 1536 * 8960);
    assertEquals(macs, j.get("prefill_multiply_adds_per_token").asLong());
    assertEquals(100.0, j.get("f32_fma_peak_gmac_per_s").asDouble());
    assertEquals(100e9 / macs, j.get("f32_fma_bound_prefill_tokens_per_s").asDouble(), 1e-3);
    assertEquals(32.0 * macs / 1e9, j.get("node_bf16_prefill_gmac_per_s").asDouble(), 1e-3);
    assertEquals(64.0 * macs / 1e9, j.get("torch_bf16_prefill_gmac_per_s").asDouble(), 1e-3);
    assertEquals(8.0, j.get("node_int8_decode_tokens_per_s").asDouble());
    assertEquals(2.0, j.get("node_int8_over_bf16_decode").asDouble());
    assertEquals(3e-7, j.get("node_bf16_vs_f32_logits_max_relative_difference").asDouble());
    assertEquals(0.012, j.get("node_int8_vs_f32_logits_max_relative_difference").asDouble());
    assertEquals(2, j.get("greedy_tokens_equal_node_int8_f32").asInt());
  }

  @Test
  void json_torchAbsent_saysSoWithNullTorchFields() throws Exception {
    AnchorReport r =
        report(
            new TorchAnchor(TorchAnchor.DEFAULT_PYTHON, 2, null)
                .absent("/usr/bin/python3 cannot import torch"));
    JsonNode j = JSON.readTree(r.json());
    assertEquals("absent", j.get("torch").asText());
    assertEquals("unset", j.get("torch_omp_wait_policy").asText());
    assertEquals("/usr/bin/python3 cannot import torch", j.get("torch_absent_reason").asText());
    for (String w : List.of("bf16", "f32")) {
      assertTrue(j.get("torch_" + w + "_decode_tokens_per_s").isNull());
      assertTrue(j.get("node_over_torch_" + w + "_prefill").isNull());
      assertEquals(
          w.equals("bf16") ? 4.0 : 2.0, j.get("node_" + w + "_decode_tokens_per_s").asDouble());
    }
    assertTrue(r.text().contains("PyTorch: absent (/usr/bin/python3 cannot import torch)"));
  }
}
