package io.tensafe.node.bench;

import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import io.tensafe.tgsp.safetensors.DType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tensafe bench node}: per-token decode time of the base model, with plaintext LoRA and
 * with HE-LoRA (hosted, CPU backend) on q, k, v and o of every layer, in one run on one model.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description =
        "Decode time per token: base model, plaintext LoRA and HE-LoRA (rank-r adapters on q, k, v"
            + " and o of every layer), measured in one run.")
public final class NodeBenchCommand implements Callable<Integer> {
  @Option(
      names = "--model",
      defaultValue = "tiny",
      description = "tiny or qwen2.5-1.5b-shape (default: ${DEFAULT-VALUE})")
  String model;

  @Option(
      names = "--adapter-rank",
      defaultValue = "32",
      description = "LoRA rank (default: ${DEFAULT-VALUE})")
  int rank;

  @Option(
      names = "--tokens",
      defaultValue = "16",
      description =
          "tokens decoded per variant after a 4-token warm-up (default: ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--json", description = "one JSON object instead of a table")
  boolean json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    System.setProperty("ai.djl.offline", "true");
    ModelShape shape =
        switch (model) {
          case "tiny" -> ModelShape.TINY;
          case "qwen2.5-1.5b-shape" -> ModelShape.QWEN25_1_5B;
          default ->
              throw new CommandLine.ParameterException(
                  spec.commandLine(), "--model must be tiny or qwen2.5-1.5b-shape, was " + model);
        };
    if (rank < 1 || rank > 256 || tokens < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "rank in 1..256, tokens >= 1");
    }
    Path dir = Files.createTempDirectory("bench-model");
    System.err.printf(Locale.ROOT, "generating %s ...%n", shape.name());
    ModelGenerator.write(shape, DType.BF16, 1, dir, s -> {});
    QwenDecoder decoder;
    {
      ModelFolder folder = ModelFolder.load(dir);
      decoder = new QwenDecoder(folder);
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    LoraAdapter adapter =
        LoraAdapter.randomForAttention(
            shape, rank, LoraAdapter.scale(2.0 * rank, rank, false), 0.01, 7);
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(
                Math.max(shape.hiddenSize(), shape.attentionHeads() * shape.headDim())),
            SecureRandom.getInstance("DRBG"));
    LoraPath plain = new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null);
    LoraPath he = new LoraPath(adapter, LoraPath.Mode.HE, operator);
    System.err.println("timing base, plaintext LoRA and HE-LoRA ...");
    double base = msPerToken(decoder, null);
    double plaintext = msPerToken(decoder, plain);
    double encrypted = msPerToken(decoder, he);
    decoder.close();
    double added = encrypted - base;
    if (json) {
      System.out.printf(
          Locale.ROOT,
          "{\"model\":\"%s\",\"parameters\":%d,\"adapter_rank\":%d,\"sites_per_layer\":4,"
              + "\"layers\":%d,\"tokens\":%d,\"base_ms_per_token\":%.3f,"
              + "\"plain_lora_ms_per_token\":%.3f,\"he_lora_ms_per_token\":%.3f,"
              + "\"he_added_ms_per_token\":%.3f,\"he_added_over_base\":%.3f,\"he_backend\":\"cpu\"}%n",
          model,
          shape.parameterCount(),
          rank,
          shape.layers(),
          tokens,
          base,
          plaintext,
          encrypted,
          added,
          added / base);
    } else {
      System.out.printf(
          Locale.ROOT,
          "%s rank %d: base %.3f ms/token, plaintext LoRA %.3f, HE-LoRA %.3f (adds %.3f = %.2f x"
              + " base)%n",
          model,
          rank,
          base,
          plaintext,
          encrypted,
          added,
          added / base);
    }
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
      for (int i = 0; i < tokens; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, lora);
      }
      return (System.nanoTime() - start) / 1e6 / tokens;
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new NodeBenchCommand()).execute(args));
  }
}
