package io.tensafe.node.tools.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.node.tools.bench.TorchAnchor.Held;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One {@code bench node --anchors} run: the node's decode and prefill tokens/s for each holding
 * beside PyTorch eager's and the memory roofline's, all from the same run on the same folder.
 *
 * <p>JSON field names are stable (documented in {@link NodeBenchCommand}); a rate is tokens per
 * second, a ratio node over anchor (above 1: the node is faster); PyTorch's fields are null when
 * {@code "torch":"absent"}.
 *
 * @param model the shape's name
 * @param layers decoder layers run
 * @param threads threads per product (the node) and {@code torch.set_num_threads} (PyTorch)
 * @param lanes F32 lanes of the node's BF16 loops (1: scalar loops)
 * @param loops the node's BF16 loops in words
 * @param node the node's rates per holding
 * @param torch PyTorch's, or absent
 * @param rooflines the decode roofline per holding
 * @param fmaPeakGmacPerS the F32 FMA rate of {@code threads} threads, operands in registers, 10⁹
 *     multiply-adds per second (NaN: not measured, scalar loops)
 * @param prefillMultiplyAddsPerToken multiply-adds of the layers' products per prompt token
 * @param int8 the node holding int8 (measured only) and the logits' distances to F32
 */
record AnchorReport(
    String model,
    int layers,
    int threads,
    int lanes,
    String loops,
    Map<Held, TokenRates> node,
    TorchAnchor.Result torch,
    Map<Held, DecodeRoofline> rooflines,
    double fmaPeakGmacPerS,
    long prefillMultiplyAddsPerToken,
    Int8 int8) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The node holding int8 ({@code WeightPrecision.INT8}, measured only) beside BF16.
   *
   * @param rates its rates, or null where it was not run (scalar loops)
   * @param bf16LogitsDifference the prompt's last logits held BF16 against F32: the largest |F32 −
   *     BF16| over the largest |F32| (NaN: not measured)
   * @param int8LogitsDifference the same for int8 (NaN: not run)
   */
  record Int8(TokenRates rates, double bf16LogitsDifference, double int8LogitsDifference) {
    /** Nothing measured. */
    static final Int8 NONE = new Int8(null, Double.NaN, Double.NaN);
  }

  AnchorReport {
    node = Map.copyOf(node);
    rooflines = Map.copyOf(rooflines);
  }

  /** Bits of one vector of the node's BF16 loops: 32 per F32 lane (32 for the scalar loops). */
  int vectorBits() {
    return 32 * lanes;
  }

  /** The run as one JSON object, fields in a fixed order. */
  String json() {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("model", model);
    f.put("layers", layers);
    f.put("threads", threads);
    f.put("vector_bits", vectorBits());
    f.put("lanes", lanes);
    f.put("bf16_loops", loops);
    TokenRates any = node.get(Held.BF16);
    f.put("prefill_tokens", any.prefillTokens());
    f.put("decode_tokens", any.decodeTokens());
    f.put("stream_read_gb_per_s", round(rooflines.get(Held.BF16).streamReadGbPerS()));
    f.put("torch", torch.present() ? "present" : "absent");
    f.put("torch_version", torch.present() ? torch.detail() : null);
    f.put("torch_absent_reason", torch.present() ? null : torch.detail());
    f.put("torch_blas", torch.blas());
    f.put("torch_omp_wait_policy", torch.ompWaitPolicy());
    f.put("f32_fma_peak_gmac_per_s", finite(fmaPeakGmacPerS));
    f.put("prefill_multiply_adds_per_token", prefillMultiplyAddsPerToken);
    f.put(
        "f32_fma_bound_prefill_tokens_per_s",
        finite(fmaPeakGmacPerS * 1e9 / prefillMultiplyAddsPerToken));
    for (Held h : Held.values()) {
      String w = h.scriptName();
      TokenRates n = node.get(h);
      TokenRates t = torch.rates().get(h);
      DecodeRoofline roof = rooflines.get(h);
      f.put("weight_bytes_per_token_" + w, roof.weightBytesPerToken());
      f.put("node_" + w + "_decode_tokens_per_s", round(n.decodeTokensPerS()));
      f.put("node_" + w + "_prefill_tokens_per_s", round(n.prefillTokensPerS()));
      f.put("torch_" + w + "_decode_tokens_per_s", t == null ? null : round(t.decodeTokensPerS()));
      f.put(
          "torch_" + w + "_prefill_tokens_per_s", t == null ? null : round(t.prefillTokensPerS()));
      f.put("node_" + w + "_prefill_gmac_per_s", round(gmacPerS(n.prefillTokensPerS())));
      f.put(
          "torch_" + w + "_prefill_gmac_per_s",
          t == null ? null : round(gmacPerS(t.prefillTokensPerS())));
      f.put("roofline_" + w + "_decode_tokens_per_s", round(roof.tokensPerS()));
      f.put("node_over_roofline_" + w + "_decode", round(n.decodeTokensPerS() / roof.tokensPerS()));
      f.put(
          "node_over_torch_" + w + "_decode",
          t == null ? null : round(n.decodeTokensPerS() / t.decodeTokensPerS()));
      f.put(
          "node_over_torch_" + w + "_prefill",
          t == null ? null : round(n.prefillTokensPerS() / t.prefillTokensPerS()));
      f.put("greedy_tokens_equal_" + w, t == null ? null : n.leadingGreedyEqual(t));
    }
    f.put("greedy_tokens", any.greedy().size());
    TokenRates q = int8.rates();
    TokenRates bf16 = node.get(Held.BF16);
    f.put("node_bf16_vs_f32_logits_max_relative_difference", finite(int8.bf16LogitsDifference()));
    f.put("node_int8_decode_tokens_per_s", q == null ? null : round(q.decodeTokensPerS()));
    f.put("node_int8_prefill_tokens_per_s", q == null ? null : round(q.prefillTokensPerS()));
    f.put(
        "node_int8_over_bf16_decode",
        q == null ? null : round(q.decodeTokensPerS() / bf16.decodeTokensPerS()));
    f.put("node_int8_vs_f32_logits_max_relative_difference", finite(int8.int8LogitsDifference()));
    f.put(
        "greedy_tokens_equal_node_int8_f32",
        q == null ? null : q.leadingGreedyEqual(node.get(Held.F32)));
    try {
      return JSON.writeValueAsString(f);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a map of strings and numbers always serialises", e);
    }
  }

  /** The run as a small table a newcomer can read, with the goals beside the ratios. */
  String text() {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "%s, %d layers; %d thread(s); node BF16 loops: %s (%d-bit vectors); streaming read"
                + " %.1f GB/s; PyTorch: %s%n",
            model,
            layers,
            threads,
            loops,
            vectorBits(),
            rooflines.get(Held.BF16).streamReadGbPerS(),
            torch.present()
                ? torch.detail()
                    + " eager, BLAS "
                    + torch.blas()
                    + ", OMP_WAIT_POLICY "
                    + torch.ompWaitPolicy()
                : "absent (" + torch.detail() + ")"));
    TokenRates any = node.get(Held.BF16);
    s.append(
        String.format(
            Locale.ROOT,
            "%-8s %-10s %18s %22s%n",
            "weights",
            "runner",
            "decode tokens/s",
            "prefill " + any.prefillTokens() + " tokens/s"));
    for (Held h : Held.values()) {
      TokenRates t = torch.rates().get(h);
      s.append(row(h, "node", node.get(h).decodeTokensPerS(), node.get(h).prefillTokensPerS()));
      s.append(
          t == null
              ? String.format(Locale.ROOT, "%-8s %-10s %18s %22s%n", h, "PyTorch", "-", "-")
              : row(h, "PyTorch", t.decodeTokensPerS(), t.prefillTokensPerS()));
      s.append(
          String.format(
              Locale.ROOT,
              "%-8s %-10s %18.2f %22s%n",
              h,
              "roofline",
              rooflines.get(h).tokensPerS(),
              "-"));
    }
    TokenRates n = node.get(Held.BF16);
    TokenRates t = torch.rates().get(Held.BF16);
    s.append(
        String.format(
            Locale.ROOT,
            "BF16 decode: node at %.2f of the roofline (goal >= %.2f)",
            n.decodeTokensPerS() / rooflines.get(Held.BF16).tokensPerS(),
            1 / 1.3));
    if (t != null) {
      s.append(
          String.format(
              Locale.ROOT,
              ", %.2f x PyTorch (goal >= 1); BF16 prefill: %.2f x PyTorch (goal >= 0.7)",
              n.decodeTokensPerS() / t.decodeTokensPerS(),
              n.prefillTokensPerS() / t.prefillTokensPerS()));
    }
    if (int8.rates() != null) {
      s.append(
          String.format(
              Locale.ROOT,
              "%nint8 (measured only): decode %.2f tokens/s, %.2f x BF16 (offered from 1.5);"
                  + " prompt logits vs F32 %.1e (BF16 %.1e); greedy tokens equal to F32's: %d of %d",
              int8.rates().decodeTokensPerS(),
              int8.rates().decodeTokensPerS() / n.decodeTokensPerS(),
              int8.int8LogitsDifference(),
              int8.bf16LogitsDifference(),
              int8.rates().leadingGreedyEqual(node.get(Held.F32)),
              int8.rates().greedy().size()));
    }
    if (Double.isFinite(fmaPeakGmacPerS)) {
      s.append(
          String.format(
              Locale.ROOT,
              "%nF32 FMA peak %.1f G multiply-adds/s (%d threads): no F32 kernel prefills faster than"
                  + " %.1f tokens/s; node BF16 prefill %.1f G/s%s",
              fmaPeakGmacPerS,
              threads,
              fmaPeakGmacPerS * 1e9 / prefillMultiplyAddsPerToken,
              gmacPerS(n.prefillTokensPerS()),
              t == null
                  ? ""
                  : String.format(
                      Locale.ROOT, ", PyTorch BF16 %.1f G/s", gmacPerS(t.prefillTokensPerS()))));
    }
    return s.append(String.format("%n")).toString();
  }

  private static String row(Held h, String runner, double decode, double prefill) {
    return String.format(Locale.ROOT, "%-8s %-10s %18.2f %22.2f%n", h, runner, decode, prefill);
  }

  /** Multiply-adds per second of the layers' products, 10⁹, at {@code tokensPerS} of prefill. */
  private double gmacPerS(double tokensPerS) {
    return tokensPerS * prefillMultiplyAddsPerToken / 1e9;
  }

  /** {@code x} rounded (three decimals above 0.01, three significant digits below), or null. */
  private static Double finite(double x) {
    if (!Double.isFinite(x)) {
      return null;
    }
    return Math.abs(x) >= 0.01 ? round(x) : Double.valueOf(String.format(Locale.ROOT, "%.3g", x));
  }

  private static double round(double x) {
    return Math.round(x * 1000) / 1000.0;
  }
}
