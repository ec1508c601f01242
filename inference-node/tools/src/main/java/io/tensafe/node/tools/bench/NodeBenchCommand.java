package io.tensafe.node.tools.bench;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.helora.HostedPhaseTimes;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.PreparedAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./tensafe bench node}: per-token decode time of the base model, with plaintext LoRA and
 * with HE-LoRA (hosted, CPU backend) on q, k, v and o of every layer, in one run on one model. With
 * {@code --matrices}, instead, the model's layer matrices' products held each way ({@link
 * MatrixBench}).
 *
 * <p>With {@code --anchors}, instead ({@link AnchorBench}, issue 52): the base model's decode and
 * prefill tokens/s held BF16 (two bytes, the default) and F32 ({@code --widen-weights}), beside
 * PyTorch eager on the same folder and the memory roofline, in one run. Its JSON object's fields
 * (stable; {@code W} is {@code bf16} or {@code f32}; rates in tokens per second; ratios node over
 * anchor, above 1 when the node is faster; {@code torch_*} null when {@code "torch":"absent"}):
 * {@code model}, {@code layers}, {@code threads} (per product, and PyTorch's), {@code vector_bits}
 * and {@code lanes} (of the node's BF16 loops: 512 and 16 with AVX-512, 256 and 8 with AVX2, 32 and
 * 1 scalar), {@code bf16_loops}, {@code prefill_tokens}, {@code decode_tokens}, {@code
 * stream_read_gb_per_s} (10⁹ bytes/s), {@code torch} ({@code "present"} or {@code "absent"}),
 * {@code torch_version}, {@code torch_absent_reason}, {@code torch_blas}, {@code
 * torch_omp_wait_policy}, {@code f32_fma_peak_gmac_per_s} (10⁹ F32 multiply-adds/s of the product
 * threads, operands in registers; null with the scalar loops), {@code
 * prefill_multiply_adds_per_token} (the layers' products per prompt token), {@code
 * f32_fma_bound_prefill_tokens_per_s} (their quotient: no F32 kernel prefills faster), and per
 * {@code W}: {@code weight_bytes_per_token_W}, {@code node_W_prefill_gmac_per_s}, {@code
 * torch_W_prefill_gmac_per_s} (prefill rate times multiply-adds per token), {@code
 * node_W_decode_tokens_per_s}, {@code node_W_prefill_tokens_per_s}, {@code
 * torch_W_decode_tokens_per_s}, {@code torch_W_prefill_tokens_per_s}, {@code
 * roofline_W_decode_tokens_per_s}, {@code node_over_roofline_W_decode}, {@code
 * node_over_torch_W_decode}, {@code node_over_torch_W_prefill}, {@code greedy_tokens_equal_W}
 * (leading greedy tokens the node and PyTorch chose alike, of {@code greedy_tokens}); then the node
 * holding int8 ({@code WeightPrecision.INT8}, measured only; null with the scalar loops): {@code
 * node_bf16_vs_f32_logits_max_relative_difference} and {@code
 * node_int8_vs_f32_logits_max_relative_difference} (the prompt's last logits, largest |F32 − x|
 * over the largest |F32|), {@code node_int8_decode_tokens_per_s}, {@code
 * node_int8_prefill_tokens_per_s}, {@code node_int8_over_bf16_decode}, {@code
 * greedy_tokens_equal_node_int8_f32}.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description =
        "Decode time per token: base model, plaintext LoRA and HE-LoRA (rank-r adapters on q, k, v"
            + " and o of every layer), measured in one run.")
public final class NodeBenchCommand implements Callable<Integer> {
  @CommandLine.Mixin BenchOptions options;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = "--matrices",
      description =
          "instead of decoding: ms per product of the model's layer matrices held as F32 (DJL),"
              + " as F16 widened per product, as two-byte BF16 (vector loops) and as int8 with a"
              + " scale per row (measured only), beside the memory roofline")
  boolean matrices;

  @CommandLine.Option(
      names = "--matrix-tokens",
      split = ",",
      defaultValue = "1",
      description = "with --matrices: tokens per product, a list (default: ${DEFAULT-VALUE})")
  int[] matrixTokens;

  @CommandLine.Option(
      names = "--anchors",
      description =
          "instead of the LoRA timing: the base model's decode and prefill tokens/s held BF16 and"
              + " F32, beside PyTorch eager on the same folder (F32 and BF16, same threads) and the"
              + " memory roofline (weight bytes per token over a streaming read's GB/s), in one run;"
              + " --tokens decode tokens are timed")
  boolean anchors;

  @CommandLine.Option(
      names = "--prefill-tokens",
      defaultValue = "128",
      description = "with --anchors: the timed prompt's tokens (default: ${DEFAULT-VALUE})")
  int prefillTokens;

  @CommandLine.Option(
      names = "--python",
      defaultValue = "/usr/bin/python3",
      description =
          "with --anchors: a Python with Debian's python3-torch; without torch the run says"
              + " \"torch\":\"absent\" and why (default: ${DEFAULT-VALUE})")
  java.nio.file.Path python;

  @CommandLine.Option(
      names = "--torch-omp-wait-policy",
      defaultValue = "inherit",
      description =
          "with --anchors: PyTorch's OMP_WAIT_POLICY: inherit (the node's, PASSIVE as ./tensafe"
              + " sets it), unset (libgomp's default: spin a while), PASSIVE or ACTIVE (default:"
              + " ${DEFAULT-VALUE})")
  String torchOmpWaitPolicy;

  @CommandLine.Option(
      names = "--seconds",
      defaultValue = "1",
      description = "with --matrices: seconds timed per product kind (default: ${DEFAULT-VALUE})")
  double seconds;

  @Override
  public Integer call() throws Exception {
    if (anchors) {
      return runAnchors();
    }
    if (matrices) {
      System.setProperty("ai.djl.offline", "true");
      for (int t : matrixTokens) {
        if (t < 1 || t > 4096) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--matrix-tokens must be in 1..4096, was " + t);
        }
      }
      ModelShape shape =
          BenchModels.shape(options.model, options.rank, options.tokens, spec.commandLine());
      new MatrixBench(System.out, options.json, seconds).run(shape, matrixTokens);
      return 0;
    }
    BenchOptions.Loaded loaded = options.load(spec.commandLine());
    ModelShape shape = loaded.shape();
    QwenDecoder decoder = loaded.decoder();
    LoraAdapter adapter = loaded.adapter();
    CpuBackend backend = new CpuBackend();
    HeOperators operators = new HeOperators(backend);
    PreparedAdapter prepared = new PreparedAdapter(adapter, operators);
    LoraPath plain = new LoraPath(prepared, LoraPath.Mode.PLAINTEXT, null);
    LoraPath he = new LoraPath(prepared, LoraPath.Mode.HE, null);
    System.err.println("timing base, plaintext LoRA and HE-LoRA ...");
    double base = msPerToken(decoder, null);
    double plaintext = msPerToken(decoder, plain);
    HostedPhaseTimes before = operators.phaseTimes();
    long[] backendBefore = backend.hostedPhaseNanos();
    long heBefore = he.heNanos();
    double encrypted = msPerToken(decoder, he);
    HostedPhaseTimes phases = operators.phaseTimes();
    long[] backendPhases = backend.hostedPhaseNanos();
    decoder.close();
    // Shares of the HE run's operator time (prompt, warm-up and timed tokens alike): encrypt is
    // encoding, sampling, the forward NTT and c0; multiply+decrypt is the backend's fused pass.
    double heNanos = he.heNanos() - heBefore;
    double encryptShare =
        ((phases.encodeSampleNanos() - before.encodeSampleNanos())
                + (backendPhases[0] - backendBefore[0]))
            / heNanos;
    double multiplyShare = (backendPhases[1] - backendBefore[1]) / heNanos;
    double decodeShare = (phases.decodeNanos() - before.decodeNanos()) / heNanos;
    double otherShare = Math.max(0, 1 - encryptShare - multiplyShare - decodeShare);
    double added = encrypted - base;
    if (options.json) {
      System.out.printf(
          Locale.ROOT,
          "{\"model\":\"%s\",\"weights\":\"%s\",\"parameters\":%d,\"adapter_rank\":%d,\"sites_per_layer\":%d,"
              + "\"sites_run_per_token\":%d,"
              + "\"layers\":%d,\"tokens\":%d,\"base_ms_per_token\":%.3f,"
              + "\"plain_lora_ms_per_token\":%.3f,\"he_lora_ms_per_token\":%.3f,"
              + "\"he_added_ms_per_token\":%.3f,\"he_added_over_base\":%.3f,"
              + "\"base_tokens_per_s\":%.2f,\"plain_lora_tokens_per_s\":%.2f,"
              + "\"he_lora_tokens_per_s\":%.2f,"
              + "\"he_share\":{\"encrypt\":%.3f,\"multiply_decrypt\":%.3f,\"decode\":%.3f,"
              + "\"other\":%.3f},\"he_backend\":\"cpu\",%s}%n",
          options.model,
          options.widenWeights ? "f32" : "bf16",
          loaded.parameters(),
          options.rank,
          loaded.sitesRunPerLayer(),
          loaded.sitesRunPerLayer() * shape.layers(),
          shape.layers(),
          options.tokens,
          base,
          plaintext,
          encrypted,
          added,
          added / base,
          1000 / base,
          1000 / plaintext,
          1000 / encrypted,
          encryptShare,
          multiplyShare,
          decodeShare,
          otherShare,
          HostedCoefficientOperator.parametersFor(shape.hiddenSize())
              .ntts()
              .getFirst()
              .laneFields());
    } else {
      System.out.printf(
          Locale.ROOT,
          "%s (%s weights) rank %d: base %.3f ms/token, plaintext LoRA %.3f, HE-LoRA %.3f (adds %.3f = %.2f x"
              + " base); HE time: encrypt %.0f%%, multiply+decrypt %.0f%%, decode %.0f%%,"
              + " other %.0f%%%n",
          options.model,
          options.widenWeights ? "f32" : "bf16",
          options.rank,
          base,
          plaintext,
          encrypted,
          added,
          added / base,
          100 * encryptShare,
          100 * multiplyShare,
          100 * decodeShare,
          100 * otherShare);
    }
    return 0;
  }

  private int runAnchors() throws Exception {
    CommandLine cl = spec.commandLine();
    if (matrices || options.widenWeights || options.model.equals("qwen3-30b-a3b-shape")) {
      throw new CommandLine.ParameterException(
          cl,
          "--anchors measures both holdings of a dense model: not with --matrices, --widen-weights"
              + " or qwen3-30b-a3b-shape");
    }
    if (prefillTokens < 1 || prefillTokens > 4096) {
      throw new CommandLine.ParameterException(
          cl, "--prefill-tokens must be in 1..4096, was " + prefillTokens);
    }
    System.setProperty("ai.djl.offline", "true");
    ModelShape shape = BenchModels.shape(options.model, options.rank, options.tokens, cl);
    if (options.layers != null) {
      if (options.layers < 1 || options.layers > shape.layers()) {
        throw new CommandLine.ParameterException(
            cl, "--layers must be in 1.." + shape.layers() + ", was " + options.layers);
      }
      shape = shape.withLayers(options.layers);
    }
    String policy =
        switch (torchOmpWaitPolicy.toUpperCase(java.util.Locale.ROOT)) {
          case "INHERIT" -> System.getenv("OMP_WAIT_POLICY");
          case "UNSET" -> null;
          case "PASSIVE", "ACTIVE" -> torchOmpWaitPolicy.toUpperCase(java.util.Locale.ROOT);
          default ->
              throw new CommandLine.ParameterException(
                  cl,
                  "--torch-omp-wait-policy must be inherit, unset, PASSIVE or ACTIVE, was "
                      + torchOmpWaitPolicy);
        };
    new AnchorBench(System.out, options.json, python, policy)
        .run(shape, prefillTokens, options.tokens);
    return 0;
  }

  private double msPerToken(QwenDecoder decoder, LoraPath lora) {
    long[] prompt = {3838, 374, 264, 18986, 2692, 30};
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache, lora);
      for (int i = 0; i < 4; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, lora);
      }
      long start = System.nanoTime();
      for (int i = 0; i < options.tokens; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, lora);
      }
      return (System.nanoTime() - start) / 1e6 / options.tokens;
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new NodeBenchCommand()).execute(args));
  }
}
