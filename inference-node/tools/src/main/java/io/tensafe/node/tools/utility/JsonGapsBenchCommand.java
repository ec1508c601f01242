package io.tensafe.node.tools.utility;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.json.JsonGrammar;
import io.tensafe.node.model.ModelVocabulary;
import io.tensafe.node.privatemode.FrameExchange;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.session.FrameHeader;
import io.tensafe.tgsp.session.FrameLimits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tensafe bench json-gaps}: what a relay sees of a JSON-mode private completion's timing
 * (issue 50, ADR 0037). For two prompts whose JSON answers differ, it times the gap between each
 * decode step's last frame answered and the next step's first frame sent, with the JSON mask
 * computed during the step's exchange (the shipped client) and between steps (as before), in one
 * run. The node runs in this process, so a gap is the client's own work between steps.
 */
@Command(
    name = "json-gaps",
    mixinStandardHelpOptions = true,
    description = "Inter-step gaps of JSON-mode private completions, masks overlapped or inline.")
public final class JsonGapsBenchCommand implements Callable<Integer> {
  @CommandLine.Mixin ModelAndAdapter model;

  @Option(names = "--tokens", defaultValue = "24", description = "tokens per completion")
  int tokens;

  @Option(names = "--json", description = "one JSON object per row")
  boolean json;

  /** Two requests whose JSON answers take different paths through the grammar. */
  static final List<String> PROMPTS =
      List.of(
          "Answer in JSON: what do I need to open a savings account?",
          "Reply with a JSON object listing three proverbs about wisdom.");

  public static void main(String[] args) {
    System.exit(new CommandLine(new JsonGapsBenchCommand()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<long[]> rendered = ReferencePrompts.render(model.modelDir, PROMPTS);
    ModelVocabulary vocabulary = ModelVocabulary.read(model.modelDir);
    ObjectMapper mapper = new ObjectMapper();
    try (QwenDecoder decoder = model.decoder();
        QwenTokenizer tokenizer = QwenTokenizer.fromFile(vocabulary.tokenizerJson())) {
      LoraAdapter adapter = model.adapter(decoder);
      ProtectedPaths paths = new ProtectedPaths(decoder, adapter);
      Map<String, TextGenerator> generators = new LinkedHashMap<>();
      generators.put("overlapped", new TextGenerator(decoder, tokenizer, vocabulary.endTokens()));
      generators.put(
          "inline",
          TextGenerator.withInlineMasksForTesting(decoder, tokenizer, vocabulary.endTokens()));
      for (Map.Entry<String, TextGenerator> g : generators.entrySet()) {
        for (int p = 0; p < rendered.size(); p++) {
          Timeline timeline = new Timeline();
          // Sampled at temperature 1 with a fixed seed per prompt: the demo model is no JSON
          // writer,
          // and sampling walks the grammar through keys, strings and numbers, where the mask's
          // work differs most; both mask variants see the same tokens.
          SamplingParameters parameters =
              new SamplingParameters(
                  1.0, 0, 1, 17 + p, tokens, List.of(), JsonGrammar.anyObject(), null);
          var generation =
              g.getValue()
                  .generate(
                      rendered.get(p),
                      parameters,
                      paths
                          .privately(new InputPrivacy(64, 0), timeline::watch)
                          .apply(rendered.get(p)),
                      d -> {},
                      Integer.MAX_VALUE);
          double[] gaps = timeline.decodeGaps();
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("masks", g.getKey());
          row.put("prompt", p);
          row.put("tokens", generation.completionTokens());
          row.put("gaps", gaps.length);
          row.put("gap_ms_min", percentile(gaps, 0));
          row.put("gap_ms_median", percentile(gaps, 0.5));
          row.put("gap_ms_p90", percentile(gaps, 0.9));
          row.put("gap_ms_max", percentile(gaps, 1));
          row.put("text", generation.text());
          row.put("avx512", UtilityBenchCommand.AVX512);
          System.out.println(
              json
                  ? mapper.writeValueAsString(row)
                  : String.format(
                      Locale.ROOT,
                      "%-10s prompt %d: %d gaps, ms min %.2f median %.2f p90 %.2f max %.2f",
                      g.getKey(),
                      p,
                      gaps.length,
                      row.get("gap_ms_min"),
                      row.get("gap_ms_median"),
                      row.get("gap_ms_p90"),
                      row.get("gap_ms_max")));
        }
      }
    }
    return 0;
  }

  private static double percentile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
  }

  /** Each exchange's step and its start and end, in nanoseconds, as a relay would see them. */
  private static final class Timeline {
    private static final FrameLimits LIMITS = new FrameLimits(1 << 30, 0xFFFF, 1 << 30);
    private final List<long[]> exchanges = new ArrayList<>();

    FrameExchange watch(FrameExchange node) {
      return frame -> {
        long start = System.nanoTime();
        byte[] answer = node.exchange(frame);
        long step;
        try {
          step = FrameHeader.read(frame, LIMITS).step();
        } catch (io.tensafe.tgsp.session.MalformedFrameException e) {
          throw new java.io.IOException(e);
        }
        exchanges.add(new long[] {step, start, System.nanoTime()});
        return answer;
      };
    }

    /** Sorted gaps in ms between a decode step's first send and the previous step's last answer. */
    double[] decodeGaps() {
      List<Double> gaps = new ArrayList<>();
      for (int i = 1; i < exchanges.size(); i++) {
        long[] previous = exchanges.get(i - 1);
        long[] current = exchanges.get(i);
        // From step 2 on: step 1's gap holds the first mask, the same for every prompt of a format.
        if (current[0] != previous[0] && current[0] >= 2) {
          gaps.add((current[1] - previous[2]) / 1e6);
        }
      }
      double[] out = gaps.stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(out);
      return out;
    }
  }
}
