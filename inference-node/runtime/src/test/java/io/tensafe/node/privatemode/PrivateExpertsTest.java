package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.DeltaArrays;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Private mode with adapters on a mixture-of-experts model's routed experts and attention (issue
 * 39, ADR 0034): it decodes as hosted HE-LoRA does, and the node (and the marketplace, which relays
 * the same bytes) cannot tell which experts the tokens chose: two prompts whose tokens route to
 * different experts give it the same frames outside the ciphertexts' bodies, frame for frame.
 */
class PrivateExpertsTest {
  private static final int TOKENS = 32;
  private static final int VIEW_STEPS = 3;
  private static TinyModel model;
  private static QwenDecoder decoder;
  private static LoraAdapter adapter;
  private static SitePlan plan;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31, ModelGenerator.Arch.QWEN3_MOE);
    decoder = model.decoder();
    double scale = LoraAdapter.scale(8, 4, false);
    adapter =
        LoraAdapter.randomForAttention(decoder.shape(), 4, scale, 1.0, 7)
            .with(
                LoraAdapter.randomForExperts(
                    decoder.shape(), ModelGenerator.TINY_MOE, 4, scale, 1, 9));
    plan = SitePlan.of(adapter, decoder.adapterShape());
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
  }

  private static GreedyDecoding greedy(long[] prompt, AdapterDeltas lora, int n) {
    return GreedyDecoding.of(decoder, prompt, lora, n);
  }

  /**
   * Plaintext deltas that record, per forward pass, which experts the decoder routed tokens to, and
   * the largest input any adapted module read.
   */
  private static final class Watched implements AdapterDeltas {
    final LoraPath exact = new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null);
    final List<Set<String>> routedPerStep = new ArrayList<>();
    double largest;

    @Override
    public void beginStep(int tokens) {
      exact.beginStep(tokens);
      routedPerStep.add(new TreeSet<>());
    }

    @Override
    public NDArray[] deltas(List<String> modules, NDArray input, NDManager manager) {
      if (modules.stream().anyMatch(adapter.sites()::containsKey)) {
        for (double[] row : DeltaArrays.rows(input)) {
          largest = Math.max(largest, Math.sqrt(Arrays.stream(row).map(v -> v * v).sum()));
        }
      }
      return exact.deltas(modules, input, manager);
    }

    @Override
    public NDArray[][] groupedDeltas(List<RowGroup> groups, NDArray input, NDManager manager) {
      for (RowGroup g : groups) {
        routedPerStep.getLast().add(g.modules().getFirst() + " " + Arrays.toString(g.rows()));
      }
      return AdapterDeltas.super.groupedDeltas(groups, input, manager);
    }
  }

  /** The node session, in this process, that a client of {@code prompt} would talk to. */
  private static InProcessNode node(
      ClientKeys keys, long[] prompt, int steps, InputPrivacy policy, boolean noise)
      throws Exception {
    return InProcessNode.open(
        adapter, plan, keys, policy, new FrameOrder(prompt.length, steps), noise);
  }

  /**
   * The packed sites' memory: every plaintext is two 54-bit residues and their Shoup companions at
   * N = 4096 (131,072 bytes), and every site packs A and B in at least one plaintext each.
   */
  @Test
  void packedSites_countTheirPlaintextsBytes() {
    PackedSites packed =
        PackedSites.pack(
            adapter, PrivateBounds.asPackWouldSign(adapter), plan, new InputPrivacy(4, 1));
    long plaintext = 2L * 2 * 4096 * 8;
    int sites = plan.groups().stream().mapToInt(g -> g.sites().size()).sum();
    assertEquals(0, packed.bytes() % plaintext, packed.bytes() + " bytes");
    assertTrue(packed.bytes() >= 2 * sites * plaintext, packed.bytes() + " bytes");
  }

  @Test
  void plan_putsEveryExpertsGroupsAfterAttention_gateAndUpBeforeAnyDown() {
    List<String> layer1 =
        plan.groups().stream()
            .map(g -> g.sites().stream().map(s -> s.path().substring(13)).toList().toString())
            .filter(g -> g.startsWith("[1."))
            .toList();
    int experts = ModelGenerator.TINY_MOE.experts();
    assertEquals(2 + 2 * experts, layer1.size(), layer1.toString());
    assertEquals("[1.self_attn.q_proj, 1.self_attn.k_proj, 1.self_attn.v_proj]", layer1.get(0));
    assertEquals("[1.mlp.experts.0.gate_proj, 1.mlp.experts.0.up_proj]", layer1.get(2));
    assertEquals("[1.mlp.experts.0.down_proj]", layer1.get(2 + experts));
    assertEquals(
        "[1.mlp.experts." + (experts - 1) + ".down_proj]", layer1.getLast(), layer1.toString());
  }

  /**
   * The client's keys are for the rings the experts' inputs need and no dense MLP's that the model
   * does not have: at Qwen3-30B-A3B (hidden 2048, attention 4096, experts 768, every layer sparse;
   * its config's dense 6144 unused) one ring of N = 4096; with a hidden size that needs N = 8192
   * and experts that fit N = 4096, both, and the dense width's ring only with a dense layer.
   */
  @Test
  void rings_followTheExpertsWidth_andTheDenseMlpOnlyWhereALayerHasOne() {
    assertEquals(
        List.of(12),
        SitePlan.ringsOf(
            io.tensafe.node.model.ModelShape.QWEN3_30B_A3B.adapterShape(
                io.tensafe.node.model.MoeShape.QWEN3_30B_A3B)));
    // Hidden and attention widths 6144 (N = 8192), experts of 2560 (N = 4096), dense 20000.
    assertEquals(List.of(12, 13), SitePlan.ringsOf(wideMoe(List.of())));
    assertEquals(List.of(12, 13, 15), SitePlan.ringsOf(wideMoe(List.of(0))));
    assertEquals(
        List.of(12, 14),
        SitePlan.ringsOf(io.tensafe.node.model.ModelShape.QWEN25_1_5B.adapterShape()));
  }

  /** Two layers, 48 heads of 128, 8 experts of 2560; {@code denseLayers} without experts. */
  private static io.tensafe.tgsp.peft.BaseModelShape wideMoe(List<Integer> denseLayers) {
    return new io.tensafe.tgsp.peft.BaseModelShape(
        6144,
        20000,
        2,
        48,
        4,
        128,
        new io.tensafe.tgsp.peft.ExpertShape(8, 2, 2560, 1, denseLayers));
  }

  @Test
  void privateDecode_expertsAndAttention_equalsHostedForThirtyTwoGreedyTokens() throws Exception {
    long[] prompt = {9707, 11, 1246, 653, 3796, 369, 264, 20846, 30};
    Watched watched = new Watched();
    GreedyDecoding exact = greedy(prompt, watched, TOKENS);
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(decoder.shape().intermediateSize()),
            SecureRandom.getInstance("DRBG"));
    GreedyDecoding hosted =
        greedy(prompt, new LoraPath(adapter, LoraPath.Mode.HE, operator), TOKENS);

    ClientKeys keys = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    // Clips nothing (5% above the largest input), as hosted mode clips nothing; DP noise off.
    InProcessNode node =
        node(keys, prompt, TOKENS - 1, new InputPrivacy(watched.largest * 1.05, 1), false);
    ClientDeltas deltas = node.client(keys, plan);
    GreedyDecoding secret = greedy(prompt, deltas, TOKENS);

    assertArrayEquals(hosted.tokens(), secret.tokens());
    double moved = GreedyDecoding.maxDistance(greedy(prompt, null, 1).prefill(), exact.prefill());
    double error = GreedyDecoding.maxDistance(exact.prefill(), secret.prefill());
    assertTrue(moved > 1e-3, "the adapter must move the logits: " + moved);
    assertTrue(error < moved / 100, "HE error " + error + " against the adapter's " + moved);
    // Every group of the plan at every forward pass, routed or not: two round trips each.
    assertEquals((long) TOKENS * 2 * plan.groups().size(), deltas.counts().roundTrips());
  }

  @Test
  void twoPromptsRoutingToDifferentExperts_giveTheNodeTheSameView() throws Exception {
    long[] banking = {9707, 11, 1246, 653, 3796, 369, 264, 20846, 30};
    long[] other = {3555, 525, 279, 6722, 9362, 3183, 4710, 1879, 13};
    Watched first = new Watched();
    Watched second = new Watched();
    greedy(banking, first, VIEW_STEPS + 1);
    greedy(other, second, VIEW_STEPS + 1);
    // The attacker's premise: the routing differs, at the prefill and at a decoded token.
    assertNotEquals(first.routedPerStep.getFirst(), second.routedPerStep.getFirst());
    assertNotEquals(first.routedPerStep.get(1), second.routedPerStep.get(1));

    NodeViewTest.assertSameSkeletons(view(banking), view(other), plan);
  }

  /**
   * A node that lies about one expert's round-two answers (their scale, which would decode the
   * deltas as infinities) at the first decoded token: the client refuses the lie at that group's
   * round trip whether or not the token was routed to the expert, so where and whether the session
   * stops tells the node nothing about the routing.
   */
  @Test
  void aNodeLyingAboutOneExpertsAnswers_stopsTheClientAtTheSameFrame_routedOrNot()
      throws Exception {
    long[] banking = {9707, 11, 1246, 653, 3796, 369, 264, 20846, 30};
    long[] other = {3555, 525, 279, 6722, 9362, 3183, 4710, 1879, 13};
    Watched first = new Watched();
    Watched second = new Watched();
    greedy(banking, first, 2);
    greedy(other, second, 2);
    // An expert of layer 1 that the first decoded token chose for one prompt and not the other.
    int expert = -1;
    for (int e = 0; e < ModelGenerator.TINY_MOE.experts() && expert < 0; e++) {
      String gate = "model.layers.1.mlp.experts." + e + ".gate_proj [0]";
      if (first.routedPerStep.get(1).contains(gate) != second.routedPerStep.get(1).contains(gate)) {
        expert = e;
      }
    }
    assertTrue(expert >= 0, "the prompts' first tokens route alike: " + first.routedPerStep);
    int group = plan.groupOf("model.layers.1.mlp.experts." + expert + ".gate_proj").orElseThrow();
    assertEquals(framesBeforeRefusal(banking, group), framesBeforeRefusal(other, group));
  }

  /** Frames sent before the client refuses a node lying about {@code group}'s scale at step 1. */
  private static int framesBeforeRefusal(long[] prompt, int group) throws Exception {
    ClientKeys keys = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    InProcessNode honest = node(keys, prompt, VIEW_STEPS, new InputPrivacy(4, 1), true);
    FrameExchange lying =
        frame -> {
          byte[] answer = honest.exchange(frame);
          try {
            SessionFrame asked = SessionFrame.read(frame, InProcessNode.LIMITS);
            if (asked.step() != 1
                || asked.group() != group
                || asked.kind() != FrameKind.ROUND_TWO) {
              return answer;
            }
            SessionFrame a = SessionFrame.read(answer, InProcessNode.LIMITS);
            List<byte[]> forged = new ArrayList<>();
            for (byte[] ct : a.ciphertexts()) {
              byte[] f = ct.clone();
              // A switched answer: its header, bits (u8), outputs (u16), then its scale (f64).
              java.nio.ByteBuffer.wrap(f, EncodingHeader.SIZE + 3, 8).putDouble(Double.MIN_VALUE);
              forged.add(f);
            }
            // The node holds the frame keys: its forgery is sealed as its own.
            return honest
                .boundAuth()
                .seal(
                    new SessionFrame(
                            a.kind(), a.sequence(), a.step(), a.group(), a.tokens(), forged)
                        .toBytes(),
                    io.tensafe.tgsp.sessionauth.FrameAuth.Direction.NODE_TO_CLIENT);
          } catch (MalformedFrameException e) {
            throw new java.io.IOException(e);
          }
        };
    ClientDeltas deltas =
        new ClientDeltas(keys, plan, lying, honest.session().terms(), honest.auth());
    java.io.UncheckedIOException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.UncheckedIOException.class, () -> greedy(prompt, deltas, 2));
    assertTrue(refused.getMessage().contains("scale"), refused.getMessage());
    return honest.received().size();
  }

  /** Every frame the node receives for {@code prompt} and {@code VIEW_STEPS} greedy tokens. */
  private static List<byte[]> view(long[] prompt) throws Exception {
    ClientKeys keys = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    InProcessNode node = node(keys, prompt, VIEW_STEPS, new InputPrivacy(4, 1), true);
    greedy(prompt, node.client(keys, plan), VIEW_STEPS + 1);
    return node.received();
  }
}
