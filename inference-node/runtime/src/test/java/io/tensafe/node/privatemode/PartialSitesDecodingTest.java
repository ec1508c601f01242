package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.ChatMessage;
import io.tensafe.node.runtime.DeltaArrays;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.session.FrameOrder;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Private mode serves every set of sites hosted mode serves (issue 33): an adapter on some of the
 * modules that read one input (q and v without k, PEFT's default for Qwen; k alone; up without
 * gate) or on one block only decodes as hosted HE-LoRA does with the DP noise off, and the modules
 * it does not adapt get no delta.
 */
class PartialSitesDecodingTest {
  private static final int TOKENS = 6;
  private static TinyModel dense;
  private static TinyModel moe;
  private static long[] prompt;

  @BeforeAll
  static void load() throws Exception {
    dense = TinyModel.generate(DType.F32, 31);
    moe = TinyModel.generate(DType.F32, 31, ModelGenerator.Arch.QWEN3_MOE);
    try (QwenTokenizer tokenizer = QwenTokenizer.load()) {
      prompt =
          tokenizer.encode(
              ChatMessage.chatMl(List.of(new ChatMessage("user", "Is my mortgage approved?"))));
    }
  }

  @AfterAll
  static void close() throws Exception {
    dense.close();
    moe.close();
  }

  private static GreedyDecoding greedy(QwenDecoder decoder, AdapterDeltas lora) {
    return GreedyDecoding.of(decoder, prompt, lora, TOKENS);
  }

  /**
   * The policy of a creator who clips at the largest input these prompts give the adapter's sites
   * (with 5% to spare): nothing is clipped, so hosted mode, which clips nothing, must agree; and
   * the session's fixed input scale is as fine as the inputs allow.
   */
  private static InputPrivacy tightPolicy(QwenDecoder decoder, LoraAdapter adapter) {
    AdapterDeltas exact = new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null);
    double[] largest = {0};
    AdapterDeltas watched =
        new AdapterDeltas() {
          @Override
          public void beginStep(int tokens) {
            exact.beginStep(tokens);
          }

          @Override
          public NDArray[] deltas(List<String> modules, NDArray input, NDManager manager) {
            if (modules.stream().anyMatch(adapter.sites()::containsKey)) {
              for (double[] row : DeltaArrays.rows(input)) {
                largest[0] =
                    Math.max(largest[0], Math.sqrt(Arrays.stream(row).map(v -> v * v).sum()));
              }
            }
            return exact.deltas(modules, input, manager);
          }
        };
    greedy(decoder, watched);
    return new InputPrivacy(largest[0] * 1.05, 1);
  }

  /** A node session without noise in this process, answering the client's frames directly. */
  private static ClientDeltas privately(LoraAdapter adapter, SitePlan plan, InputPrivacy policy)
      throws Exception {
    ClientKeys keys = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    return InProcessNode.open(
            adapter, plan, keys, policy, new FrameOrder(prompt.length, TOKENS - 1), false)
        .client(keys, plan);
  }

  /**
   * Private decoding of {@code adapter} gives hosted HE-LoRA's greedy tokens, and its prefill
   * logits are the plaintext deltas' within HE's error, which is far below what the adapter moves.
   */
  private static void assertPrivateEqualsHosted(QwenDecoder decoder, LoraAdapter adapter)
      throws Exception {
    SitePlan plan = SitePlan.of(adapter, decoder.adapterShape());
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(decoder.shape().intermediateSize()),
            SecureRandom.getInstance("DRBG"));
    GreedyDecoding hosted = greedy(decoder, new LoraPath(adapter, LoraPath.Mode.HE, operator));
    ClientDeltas deltas = privately(adapter, plan, tightPolicy(decoder, adapter));
    GreedyDecoding secret = greedy(decoder, deltas);
    assertArrayEquals(hosted.tokens(), secret.tokens());

    float[] base = greedy(decoder, null).prefill();
    float[] exact = greedy(decoder, new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null)).prefill();
    double moved = GreedyDecoding.maxDistance(base, exact);
    double error = GreedyDecoding.maxDistance(exact, secret.prefill());
    assertTrue(moved > 1e-3, "the adapter must move the logits: " + moved);
    assertTrue(error < moved / 100, "HE error " + error + " against the adapter's " + moved);
    // Two round trips per group the plan has, per forward pass: none for unadapted modules.
    assertEquals((long) TOKENS * 2 * plan.groups().size(), deltas.counts().roundTrips());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "q_proj,v_proj",
        "k_proj",
        "o_proj",
        "up_proj",
        "gate_proj,down_proj",
        "gate_proj,up_proj,down_proj"
      })
  void privateDecode_adapterOnSomeModules_equalsHosted(String modules) throws Exception {
    QwenDecoder decoder = dense.decoder();
    LoraAdapter adapter =
        LoraAdapter.random(
            decoder.shape(), List.of(modules.split(",")), 4, LoraAdapter.scale(8, 4, false), 1, 7);
    assertPrivateEqualsHosted(decoder, adapter);
  }

  /** Attention sites on a mixture-of-experts model: its experts and dense MLP get no delta. */
  @Test
  void privateDecode_qAndVOnAMoeModel_equalsHosted() throws Exception {
    QwenDecoder decoder = moe.decoder();
    LoraAdapter adapter =
        LoraAdapter.random(
            decoder.shape(), List.of("q_proj", "v_proj"), 4, LoraAdapter.scale(8, 4, false), 1, 7);
    assertPrivateEqualsHosted(decoder, adapter);
  }

  /** A plan that splits one input's modules over two groups is refused, and says so. */
  @Test
  void deltas_planSplittingOneInputsModules_isRefusedNamingTheGroups() throws Exception {
    QwenDecoder decoder = dense.decoder();
    LoraAdapter adapter =
        LoraAdapter.random(
            decoder.shape(), List.of("q_proj", "k_proj"), 4, LoraAdapter.scale(8, 4, false), 1, 7);
    SitePlan joined = SitePlan.of(adapter, decoder.adapterShape());
    // Layer 0's q and k, each a group of its own.
    List<SitePlan.Site> layer0 = joined.groups().getFirst().sites();
    SitePlan split =
        new SitePlan(
            List.of(
                new SitePlan.Group(List.of(layer0.get(0))),
                new SitePlan.Group(List.of(layer0.get(1)))),
            joined.rings());
    ClientDeltas deltas = privately(adapter, split, PrivateDecodingTest.POLICY);
    try (KvCache cache = decoder.newCache()) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> decoder.forward(prompt, cache, deltas));
      assertTrue(e.getMessage().contains("over groups [0, 1]"), e.getMessage());
      assertTrue(e.getMessage().contains("self_attn.k_proj"), e.getMessage());
    }
    assertEquals(0, deltas.counts().roundTrips(), "no frame may leave before the refusal");
  }
}
