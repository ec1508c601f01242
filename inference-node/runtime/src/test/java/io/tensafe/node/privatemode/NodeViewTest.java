package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.tensafe.kernels.rlwe.RlweCodec;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attacker's test of private mode (ADR 0025), as the node (and the marketplace, which relays
 * the same bytes) sees it: for two prompts of one length, every byte of every frame outside the
 * ciphertexts' bodies is the same, and so is every frame's size. Each frame is compared whole: it
 * must re-serialise to exactly the bytes received (nothing outside what is parsed), and its
 * skeleton, with each upload's body replaced by zeros, must be equal across the prompts. Before ADR
 * 0025 every upload carried a scale set from its input, which a table over the vocabulary read back
 * as the token; this test fails on that code.
 */
class NodeViewTest {
  private static final int STEPS = 4;
  private static TinyAttention tiny;
  private static QwenDecoder decoder;
  private static LoraAdapter adapter;
  private static SitePlan plan;

  @BeforeAll
  static void load() throws Exception {
    tiny = TinyAttention.load();
    decoder = tiny.decoder();
    adapter = tiny.adapter();
    plan = tiny.plan();
  }

  @AfterAll
  static void close() throws Exception {
    tiny.close();
  }

  /** Every frame the node receives for {@code prompt} and {@code STEPS} greedy tokens. */
  private static List<byte[]> nodeView(long[] prompt) throws Exception {
    return nodeView(prompt, prompt.length);
  }

  /** As {@link #nodeView(long[])}, the prompt padded to {@code padded} tokens (ADR 0037). */
  private static List<byte[]> nodeView(long[] prompt, int padded) throws Exception {
    ClientKeys client = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    InProcessNode node =
        InProcessNode.open(
            adapter, plan, client, new InputPrivacy(4, 1), new FrameOrder(padded, STEPS), true);
    ClientDeltas deltas = node.client(client, plan);
    deltas.padPrompt(prompt.length, padded, padded);
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache, deltas);
      for (int i = 0; i < STEPS; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, deltas);
      }
    }
    return node.received();
  }

  /**
   * The frame with every upload's body, its nonce and its tag zeroed (fresh random material, and a
   * MAC of the rest): what is left is everything the client's text could show through besides the
   * ciphertexts themselves.
   */
  static byte[] skeleton(byte[] bytes, SitePlan plan) throws MalformedFrameException {
    SessionFrame frame = SessionFrame.read(bytes, InProcessNode.LIMITS);
    byte[] untagged = bytes.clone();
    Arrays.fill(
        untagged,
        SessionFrame.HEADER_BYTES - SessionFrame.TAG_BYTES,
        SessionFrame.HEADER_BYTES,
        (byte) 0);
    assertArrayEquals(
        untagged, frame.toBytes(), "a frame holds nothing outside what it parses to and its tag");
    int prefix =
        (int)
            (RlweCodec.uploadBytes(SitePlan.ring(plan.rings().getFirst()))
                - RlweCodec.packedBytes(SitePlan.ring(plan.rings().getFirst()), 2));
    List<byte[]> hollow = new ArrayList<>();
    for (byte[] ct : frame.ciphertexts()) {
      byte[] h = new byte[ct.length];
      System.arraycopy(ct, 0, h, 0, prefix);
      hollow.add(h);
    }
    return new SessionFrame(
            frame.kind(), frame.sequence(), frame.step(), frame.group(), frame.tokens(), hollow)
        .toBytes();
  }

  private static void assertSameView(long[] first, long[] second) throws Exception {
    List<byte[]> a = nodeView(first);
    List<byte[]> b = nodeView(second);
    assertSameSkeletons(a, b, plan);
  }

  /**
   * The frames {@code a} and {@code b} the node received are as many, each of one size, equal
   * outside the ciphertexts' bodies, and not copies.
   */
  static void assertSameSkeletons(List<byte[]> a, List<byte[]> b, SitePlan plan)
      throws MalformedFrameException {
    assertEquals(a.size(), b.size(), "frames");
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).length, b.get(i).length, "frame " + i + "'s size");
      assertArrayEquals(
          skeleton(a.get(i), plan), skeleton(b.get(i), plan), "frame " + i + " outside bodies");
    }
    assertFalse(
        Arrays.equals(a.getFirst(), b.getFirst()), "the bodies differ: the frames are not copies");
  }

  @Test
  void twoPromptsOfOneLength_giveTheNodeTheSameViewOutsideCiphertextBodies() throws Exception {
    long[] banking = {9707, 11, 1246, 653, 3796, 369, 264, 20846, 30};
    long[] other = {3555, 525, 279, 6722, 9362, 3183, 4710, 1879, 13};
    assertSameView(banking, other);
  }

  @Test
  void oneTokenChanged_givesTheNodeTheSameViewOutsideCiphertextBodies() throws Exception {
    long[] prompt = {9707, 11, 1246, 653, 3796, 369, 264, 20846, 30};
    long[] changed = prompt.clone();
    changed[4] = 151;
    assertSameView(prompt, changed);
  }

  /**
   * Two prompts of 5 and 7 tokens, both padded to their bucket of 8: the node sees the same frames
   * (ADR 0037), where unpadded the prefill's token count told them apart.
   */
  @Test
  void twoPromptsInOneBucket_giveTheNodeTheSameView() throws Exception {
    long[] five = {9707, 11, 1246, 653, 3796};
    long[] seven = {3555, 525, 279, 6722, 9362, 3183, 4710};
    assertSameSkeletons(nodeView(five, 8), nodeView(seven, 8), plan);
    assertFalse(
        Arrays.equals(
            skeleton(nodeView(five).getFirst(), plan), skeleton(nodeView(seven).getFirst(), plan)),
        "unpadded, the prefill's frames differ");
  }

  /**
   * A padded prompt over several prefill chunks ends its prefill exactly at the bucket, so the
   * node's meter (the marketplace's is the same {@code FrameOrder}) counts the padded prompt and
   * every decode step as completion, as the client's usage does: 5 tokens in a chunk of 8 pad to 16
   * with one zero-row step; 9 tokens (8 + 1) pad their last step to a whole chunk.
   */
  @Test
  void paddingOverChunks_endsThePrefillAtTheBucket_andMetersAsTheClientCounts() throws Exception {
    for (long[] prompt : new long[][] {{9707, 11, 1246, 653, 3796}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
      ClientKeys client = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
      FrameOrder order = new FrameOrder(16, STEPS, 8);
      InProcessNode node =
          InProcessNode.open(adapter, plan, client, new InputPrivacy(4, 1), order, true);
      ClientDeltas deltas = node.client(client, plan);
      deltas.padPrompt(prompt.length, 16, 8);
      try (KvCache cache = decoder.newCache()) {
        float[] logits = null;
        for (int[] range : io.tensafe.node.runtime.TextGenerator.prefillSteps(prompt.length, 8)) {
          logits = decoder.forward(Arrays.copyOfRange(prompt, range[0], range[1]), cache, deltas);
        }
        for (int i = 0; i < 2; i++) {
          logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, deltas);
        }
      }
      assertEquals(16, order.promptTokens(), prompt.length + " tokens");
      assertEquals(16, deltas.promptTokensRun(), prompt.length + " tokens");
      assertEquals(3, order.completionTokens(), prompt.length + " tokens");
    }
  }
}
