package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The creator's DP policy as the decoder applies it (ADR 0035): with z = 0 nothing is added, so
 * greedy answers repeat and equal the policy-less ones when C is above every input's norm; with z
 * &gt; 0 every adapted site's output for every token gets N(0, σ²), σ = z·2·L·C, so answers vary
 * and each site and token is one release.
 */
class PolicyNoiseTest {
  private static final int TOKENS = 16;
  private static TinyModel model;
  private static QwenDecoder decoder;
  private static long[] prompt;
  private static PreparedAdapter prepared;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31);
    decoder = model.decoder();
    try (QwenTokenizer tokenizer = QwenTokenizer.load()) {
      prompt =
          tokenizer.encode(
              ChatMessage.chatMl(
                  List.of(new ChatMessage("user", "Can I close my fixed deposit early?"))));
    }
    LoraAdapter adapter =
        LoraAdapter.randomForAttention(decoder.shape(), 4, LoraAdapter.scale(8, 4, false), 1.0, 99);
    prepared = new PreparedAdapter(adapter, new HeOperators(new CpuBackend()));
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
  }

  /** Greedy tokens after the prompt, the deltas from {@code lora} (or none). */
  private static long[] greedy(AdapterDeltas lora, int n) {
    long[] out = new long[n];
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache, lora);
      for (int i = 0; i < n; i++) {
        out[i] = Sampler.argmax(logits);
        logits = decoder.forward(new long[] {out[i]}, cache, lora);
      }
    }
    return out;
  }

  /** The largest L2 norm of any LoRA input of a greedy run without a policy. */
  private static double largestInputNorm() {
    InputNorms norms = new InputNorms(new LoraPath(prepared, LoraPath.Mode.PLAINTEXT, null));
    greedy(norms, TOKENS);
    assertTrue(norms.largest > 0, "no LoRA input was seen");
    return norms.largest;
  }

  @Test
  void noNoisePolicy_greedyAnswersRepeat_andEqualThoseWithoutAPolicy_inBothModes() {
    double clip = Math.ceil(2 * largestInputNorm());
    long[] base = greedy(null, TOKENS);
    for (LoraPath.Mode mode : LoraPath.Mode.values()) {
      long[] without = greedy(new LoraPath(prepared, mode, null), TOKENS);
      assertFalse(Arrays.equals(base, without), mode + ": the adapter must change the answer");
      LoraPath first = new LoraPath(prepared, mode, new InputPrivacy(clip, 0));
      LoraPath second = new LoraPath(prepared, mode, new InputPrivacy(clip, 0));
      long[] a = greedy(first, TOKENS);
      long[] b = greedy(second, TOKENS);
      assertArrayEquals(a, b, mode + ": two runs under z = 0 differ");
      assertArrayEquals(without, a, mode + ": z = 0 with C above every input changed the answer");
      assertEquals(0, first.releases() + second.releases(), mode + ": z = 0 releases nothing");
    }
  }

  @Test
  void noisedPolicy_greedyAnswersVary_andEverySiteAndTokenIsOneRelease_inBothModes() {
    double clip = Math.ceil(2 * largestInputNorm());
    int sites = prepared.adapter().sites().size();
    for (LoraPath.Mode mode : LoraPath.Mode.values()) {
      LoraPath first = new LoraPath(prepared, mode, new InputPrivacy(clip, 0.5));
      LoraPath second = new LoraPath(prepared, mode, new InputPrivacy(clip, 0.5));
      long[] a = greedy(first, TOKENS);
      long[] b = greedy(second, TOKENS);
      assertFalse(Arrays.equals(a, b), mode + ": two noised runs gave the same answer");
      assertEquals((prompt.length + (long) TOKENS) * sites, first.releases(), mode.toString());
      assertEquals(first.releases(), second.releases(), mode.toString());
    }
  }

  @Test
  void noise_hasStdZTimesTwoLTimesC_onEveryOutputCoordinate() {
    double clip = 4.0;
    double z = 0.7;
    double sigma = z * 2 * SpectralBound.asPackWouldSign(prepared.adapter()) * clip;
    assertEquals(
        sigma,
        new InputPrivacy(clip, z).outputSigma(SpectralBound.asPackWouldSign(prepared.adapter())),
        1e-12);
    List<String> modules =
        List.of(
            "model.layers.0.self_attn.q_proj",
            "model.layers.0.self_attn.k_proj",
            "model.layers.0.self_attn.v_proj");
    int rows = 200;
    int width = decoder.shape().hiddenSize();
    SplittableRandom random = new SplittableRandom(7);
    float[] flat = new float[rows * width];
    for (int i = 0; i < flat.length; i++) {
      flat[i] = (float) (random.nextGaussian() * 0.1); // row norms near 0.8, below C
    }
    LoraPath quiet = new LoraPath(prepared, LoraPath.Mode.PLAINTEXT, new InputPrivacy(clip, 0));
    LoraPath noisy = new LoraPath(prepared, LoraPath.Mode.PLAINTEXT, new InputPrivacy(clip, z));
    double sum = 0;
    double squares = 0;
    long n = 0;
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      NDArray input = manager.create(flat, new ai.djl.ndarray.types.Shape(rows, width));
      NDArray[] clean = quiet.deltas(modules, input, manager);
      NDArray[] noised = noisy.deltas(modules, input, manager);
      for (int m = 0; m < modules.size(); m++) {
        float[] c = clean[m].toFloatArray();
        float[] d = noised[m].toFloatArray();
        for (int i = 0; i < c.length; i++) {
          double e = (double) d[i] - c[i];
          sum += e;
          squares += e * e;
          n++;
        }
      }
    }
    double mean = sum / n;
    double std = Math.sqrt(squares / n - mean * mean);
    // n ≈ 25 600 draws: the sample std is within 3% of σ far beyond 5 standard errors (0.44% each).
    assertEquals(sigma, std, 0.03 * sigma, "noise std over " + n + " coordinates");
    assertEquals(0, mean, 5 * sigma / Math.sqrt(n), "noise mean");
    assertEquals(rows * (long) modules.size(), noisy.releases(), "one release per site and row");
    assertEquals(0, quiet.releases());
  }

  /** Passes deltas through, keeping the largest L2 norm of an input row it saw. */
  private static final class InputNorms implements AdapterDeltas {
    private final AdapterDeltas inner;
    double largest;

    InputNorms(AdapterDeltas inner) {
      this.inner = inner;
    }

    @Override
    public void beginStep(int tokens) {
      inner.beginStep(tokens);
    }

    @Override
    public NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
      see(input);
      return inner.deltas(modules, input, step);
    }

    @Override
    public NDArray[][] groupedDeltas(List<RowGroup> groups, NDArray input, NDManager step) {
      see(input);
      return inner.groupedDeltas(groups, input, step);
    }

    private void see(NDArray input) {
      for (double[] row : DeltaArrays.rows(input)) {
        double norm = 0;
        for (double v : row) {
          norm += v * v;
        }
        largest = Math.max(largest, Math.sqrt(norm));
      }
    }
  }
}
