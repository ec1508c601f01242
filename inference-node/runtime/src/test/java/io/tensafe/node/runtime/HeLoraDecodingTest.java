package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An adapter whose B is large enough to change the output, on q, k, v and o of every layer: HE-LoRA
 * decoding equals plaintext LoRA token for token, and differs from the base model.
 */
class HeLoraDecodingTest {
  private static TinyModel model;
  private static QwenDecoder decoder;
  private static long[] prompt;
  private static LoraAdapter adapter;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31);
    decoder = model.decoder();
    try (QwenTokenizer tokenizer = QwenTokenizer.load()) {
      prompt =
          tokenizer.encode(
              ChatMessage.chatMl(
                  java.util.List.of(new ChatMessage("user", "How do I apply for a mortgage?"))));
    }
    adapter =
        LoraAdapter.randomForAttention(decoder.shape(), 4, LoraAdapter.scale(8, 4, false), 1.0, 99);
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
  }

  private static long[] greedy(LoraPath lora, int n) {
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

  @Test
  void greedy64Tokens_heLoraEqualsPlaintextLora_andDiffersFromTheBase() throws Exception {
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(decoder.shape().hiddenSize()),
            SecureRandom.getInstance("DRBG"));
    LoraPath he = new LoraPath(adapter, LoraPath.Mode.HE, operator);
    LoraPath plain = new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null);
    long[] withHe = greedy(he, 64);
    long[] withPlain = greedy(plain, 64);
    long[] base = greedy(null, 64);
    assertArrayEquals(withPlain, withHe);
    assertFalse(java.util.Arrays.equals(base, withPlain), "the adapter must change the output");
    // q, k, v share one operator call per layer, o another: 2 calls per layer per forward pass.
    assertEquals(65L * 2 * decoder.shape().layers(), he.heCalls());
  }

  @Test
  void oneSite_heDeltaOfTheLogitsMatchesThePlaintextDelta() throws Exception {
    String only = "model.layers.1.self_attn.v_proj";
    LoraAdapter single = new LoraAdapter(Map.of(only, adapter.sites().get(only)));
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(decoder.shape().hiddenSize()),
            SecureRandom.getInstance("DRBG"));
    float[] base = logits(null);
    float[] plain = logits(new LoraPath(single, LoraPath.Mode.PLAINTEXT, null));
    float[] he = logits(new LoraPath(single, LoraPath.Mode.HE, operator));
    double largestDelta = 0;
    double worst = 0;
    for (int i = 0; i < base.length; i++) {
      largestDelta = Math.max(largestDelta, Math.abs(plain[i] - base[i]));
      worst = Math.max(worst, Math.abs((he[i] - base[i]) - (plain[i] - base[i])));
    }
    assertTrue(largestDelta > 1e-3, "the site must move the logits: " + largestDelta);
    assertTrue(worst < 1e-3 * largestDelta, "HE delta off by " + worst + " of " + largestDelta);
  }

  @Test
  void everyModule_heEqualsPlaintext_withOneOperatorPerRing() {
    LoraAdapter all = LoraAdapter.random(decoder.shape(), LoraAdapter.ALL_MODULES, 4, 2.0, 0.3, 21);
    PreparedAdapter prepared =
        new PreparedAdapter(all, new HeOperators(new io.tensafe.kernels.backend.CpuBackend()));
    LoraPath he = new LoraPath(prepared, LoraPath.Mode.HE, null);
    long[] withHe = greedy(he, 32);
    assertArrayEquals(greedy(new LoraPath(prepared, LoraPath.Mode.PLAINTEXT, null), 32), withHe);
    assertFalse(java.util.Arrays.equals(greedy(null, 32), withHe));
    // Four operator calls per layer per pass: q/k/v, o, gate/up, down.
    assertEquals(33L * 4 * decoder.shape().layers(), he.heCalls());
  }

  @Test
  void outputNoise_countsOneReleasePerTokenPerSite() {
    LoraAdapter all = LoraAdapter.random(decoder.shape(), LoraAdapter.ALL_MODULES, 4, 2.0, 0.3, 21);
    PreparedAdapter prepared = new PreparedAdapter(all, null);
    LoraPath noisy = new LoraPath(prepared, LoraPath.Mode.PLAINTEXT, new InputPrivacy(1.0, 1.0));
    greedy(noisy, 8);
    // (prompt + 8 tokens) × 7 sites per layer (q, k, v, o, gate, up, down) × layers.
    assertEquals((prompt.length + 8L) * 7 * decoder.shape().layers(), noisy.releases());
    // The marketplace reserves budgets by the same count, from the package's tensor names.
    int perToken =
        io.tensafe.tgsp.peft.LoraInputs.releasesPerToken(
            all.sites().keySet().stream().map(site -> site + ".lora_A.weight").toList());
    assertEquals((prompt.length + 8L) * perToken, noisy.releases());
  }

  private static float[] logits(LoraPath lora) {
    try (KvCache cache = decoder.newCache()) {
      return decoder.forward(prompt, cache, lora);
    }
  }
}
