package io.tensafe.node.tools.utility;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tensafe bench utility}: per DP policy and per mode, the adapter's effect retained
 * ({@link EffectMeter}) and the tokens an organisation can run per period (ADR 0035). JSON rows
 * with {@code --json}; the fields named here are stable: {@code mode, noise_multiplier, clip_norm,
 * greedy_agreement, kl_ratio, positions, tokens_per_period, releases_per_token}.
 */
@Command(
    name = "utility",
    mixinStandardHelpOptions = true,
    description = "The adapter's effect retained under each DP policy, per mode.")
public final class UtilityBenchCommand implements Callable<Integer> {
  @CommandLine.Mixin ModelAndAdapter model;

  @Option(names = "--prompts", description = "user messages, one per line (default: reference)")
  Path prompts;

  @Option(names = "--tokens", defaultValue = "64", description = "tokens per prompt (default: 64)")
  int tokens;

  @Option(
      names = "--noise-multipliers",
      split = ",",
      defaultValue = "0,0.001,0.01",
      description = "the policies' z, comma-separated (default: ${DEFAULT-VALUE})")
  List<Double> noiseMultipliers;

  @Option(
      names = "--clip-norm",
      defaultValue = "64",
      description = "the policies' clip norm C (default: ${DEFAULT-VALUE})")
  double clipNorm;

  @Option(names = "--epsilon", defaultValue = "100", description = "ε per period (default: 100)")
  double epsilon;

  @Option(names = "--delta", defaultValue = "0.00001", description = "δ (default: 0.00001)")
  double delta;

  @Option(
      names = "--modes",
      split = ",",
      defaultValue = "PLAINTEXT,HOSTED,PRIVATE",
      description = "plaintext (pack's figure), hosted, private (default: all)")
  List<ProtectedPaths.Mode> modes;

  @Option(
      names = "--encrypted-noise-multipliers",
      split = ",",
      defaultValue = "0",
      description =
          "the policies hosted and private mode are measured at (their HE dominates the run; the"
              + " noise is the plaintext rows' mechanism) (default: ${DEFAULT-VALUE})")
  List<Double> encryptedNoiseMultipliers;

  @Option(names = "--json", description = "one JSON object per row")
  boolean json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Whether this host has AVX-512 (benchmark rows say so; the decoder's speed depends on it). */
  static final boolean AVX512 = avx512();

  private static boolean avx512() {
    try {
      return Files.readString(Path.of("/proc/cpuinfo")).contains(" avx512f");
    } catch (java.io.IOException | RuntimeException e) {
      return false;
    }
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new UtilityBenchCommand());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    System.exit(cli.execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<String> messages =
        prompts == null
            ? ReferencePrompts.BANKING
            : Files.readAllLines(prompts).stream()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
    List<long[]> rendered = ReferencePrompts.render(model.modelDir, messages);
    ObjectMapper mapper = new ObjectMapper();
    List<Map<String, Object>> rows = new ArrayList<>();
    long started = System.nanoTime();
    try (QwenDecoder decoder = model.decoder()) {
      LoraAdapter adapter = model.adapter(decoder);
      ProtectedPaths paths = new ProtectedPaths(decoder, adapter);
      long r0 = System.nanoTime();
      EffectMeter.Reference reference =
          EffectMeter.reference(decoder, rendered, tokens, paths.noiseless());
      System.err.printf(
          Locale.ROOT,
          "reference: %d positions changed by the adapter, %.1f s%n",
          reference.positions(),
          (System.nanoTime() - r0) / 1e9);
      for (double z : noiseMultipliers) {
        InputPrivacy policy = new InputPrivacy(clipNorm, z);
        OptionalLong perPeriod = PolicyFigures.tokensPerPeriod(adapter, z, epsilon, delta);
        for (ProtectedPaths.Mode mode : modes) {
          if (mode != ProtectedPaths.Mode.PLAINTEXT && !encryptedNoiseMultipliers.contains(z)) {
            continue;
          }
          long t0 = System.nanoTime();
          EffectMeter.Result r = EffectMeter.measure(decoder, reference, paths.under(policy, mode));
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("model", model.modelDir.getFileName().toString());
          row.put("mode", mode.name().toLowerCase(Locale.ROOT));
          row.put("noise_multiplier", z);
          row.put("clip_norm", clipNorm);
          row.put("epsilon", epsilon);
          row.put("delta", delta);
          row.put("prompts", rendered.size());
          row.put("tokens_per_prompt", tokens);
          row.put("positions", r.positions());
          row.put("greedy_agreement", r.agreement());
          row.put("kl_ratio", r.klRatio());
          row.put("releases_per_token", PolicyFigures.releasesPerToken(adapter));
          row.put("tokens_per_period", perPeriod.isPresent() ? perPeriod.getAsLong() : null);
          row.put("seconds", (System.nanoTime() - t0) / 1e9);
          row.put("avx512", AVX512);
          rows.add(row);
          System.out.println(json ? mapper.writeValueAsString(row) : line(row));
        }
      }
    }
    System.err.printf(
        Locale.ROOT, "%d rows in %.1f s%n", rows.size(), (System.nanoTime() - started) / 1e9);
    return 0;
  }

  private static String line(Map<String, Object> r) {
    Object perPeriod = r.get("tokens_per_period");
    return String.format(
        Locale.ROOT,
        "%-9s z=%-8s agreement %.3f over %d positions, KL ratio %.4f, tokens/period %s (%.1f s)",
        r.get("mode"),
        r.get("noise_multiplier"),
        (double) r.get("greedy_agreement"),
        (int) r.get("positions"),
        (double) r.get("kl_ratio"),
        perPeriod == null ? "unlimited" : perPeriod,
        (double) r.get("seconds"));
  }
}
