package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.ChatMessage;
import io.tensafe.node.runtime.DeltaArrays;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Private mode on the tiny model (ADR 0017): the client's decoder with every delta computed by a
 * node session under the client's key equals hosted HE-LoRA token for token, and the node receives
 * nothing readable.
 */
class PrivateDecodingTest {
  private static final String PROMPT = "How do I apply for a mortgage?";
  private static TinyModel model;
  private static QwenDecoder decoder;
  private static long[] prompt;
  private static LoraAdapter adapter;
  private static SitePlan plan;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31);
    decoder = model.decoder();
    try (QwenTokenizer tokenizer = QwenTokenizer.load()) {
      prompt = tokenizer.encode(ChatMessage.chatMl(List.of(new ChatMessage("user", PROMPT))));
    }
    adapter =
        LoraAdapter.randomForAttention(decoder.shape(), 4, LoraAdapter.scale(8, 4, false), 1.0, 99);
    plan = SitePlan.of(adapter, decoder.adapterShape());
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
  }

  private static long[] greedy(AdapterDeltas lora, int n) {
    return greedy(lora, n, Integer.MAX_VALUE);
  }

  /** Greedy tokens after a prefill in steps of {@code chunk} (the last one short). */
  private static long[] greedy(AdapterDeltas lora, int n, int chunk) {
    long[] out = new long[n];
    try (KvCache cache = decoder.newCache()) {
      float[] logits = null;
      for (int[] range : TextGenerator.prefillSteps(prompt.length, chunk)) {
        logits = decoder.forward(Arrays.copyOfRange(prompt, range[0], range[1]), cache, lora);
      }
      for (int i = 0; i < n; i++) {
        out[i] = Sampler.argmax(logits);
        if (i + 1 < n) {
          logits = decoder.forward(new long[] {out[i]}, cache, lora);
        }
      }
    }
    return out;
  }

  /** A node session in this process; every byte it receives is kept. */
  private record Wire(NodeSession node, ByteArrayOutputStream received, FrameAuth auth)
      implements FrameExchange {
    @Override
    public byte[] exchange(byte[] frame) throws IOException {
      received.write(frame);
      try {
        return node.answer(frame, limits());
      } catch (MalformedFrameException e) {
        throw new IOException(e);
      }
    }
  }

  /** {@code frame} sealed as the client's. */
  private static byte[] sealed(FrameAuth auth, SessionFrame frame) {
    return auth.seal(frame.toBytes(), FrameAuth.Direction.CLIENT_TO_NODE);
  }

  private static FrameLimits limits() {
    return new FrameLimits(1 << 28, PrivateLimits.MAX_CIPHERTEXTS, 1 << 20);
  }

  private static ClientKeys client() throws Exception {
    return ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
  }

  private static Wire wire(ClientKeys client, int maxTokens) throws Exception {
    return wire(client, maxTokens, new FrameOrder(prompt.length, maxTokens - 1));
  }

  private static Wire wire(ClientKeys client, int maxTokens, FrameOrder order) throws Exception {
    FrameAuth auth = InProcessNode.freshAuth();
    NodeSession node =
        NodeSession.openWithoutNoiseForTesting(
            adapter,
            PrivateBounds.asPackWouldSign(adapter),
            plan,
            client.publicKeys(),
            auth,
            POLICY,
            order,
            SecureRandom.getInstance("DRBG"));
    return new Wire(node, new ByteArrayOutputStream(), auth);
  }

  /** A clip norm above every input of these prompts: hosted mode, which clips nothing, agrees. */
  static final InputPrivacy POLICY = new InputPrivacy(100, 1);

  /** The client's half of a session with {@code wire}'s node. */
  private static ClientDeltas deltas(ClientKeys client, Wire wire) {
    return new ClientDeltas(client, plan, wire, wire.node().terms(), wire.auth());
  }

  /** Keeps the clear inputs the decoder hands the deltas: what must never reach the node. */
  private record Watched(AdapterDeltas inner, List<double[]> seen) implements AdapterDeltas {
    @Override
    public void beginStep(int tokens) {
      inner.beginStep(tokens);
    }

    @Override
    public NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
      seen.addAll(Arrays.asList(DeltaArrays.rows(input)));
      return inner.deltas(modules, input, step);
    }
  }

  /** The greedy tokens of hosted HE-LoRA (the node's key) with the same adapter. */
  private static long[] hostedGreedy(int n) throws Exception {
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(decoder.shape().hiddenSize()),
            SecureRandom.getInstance("DRBG"));
    return greedy(new LoraPath(adapter, LoraPath.Mode.HE, operator), n);
  }

  @Test
  void greedy64Tokens_privateEqualsHosted_andTheNodeReceivesNothingReadable() throws Exception {
    long[] hosted = hostedGreedy(64);
    ClientKeys client = client();
    Wire wire = wire(client, 64);
    ClientDeltas deltas = deltas(client, wire);
    Watched watched = new Watched(deltas, new ArrayList<>());
    long[] privately = greedy(watched, 64);
    assertArrayEquals(hosted, privately);
    assertFalse(Arrays.equals(greedy(null, 64), privately), "the adapter must change the output");
    // q/k/v and o: two groups per layer, two round trips each, per forward pass (1 + 63).
    assertEquals(64L * 2 * 2 * decoder.shape().layers(), deltas.counts().roundTrips());

    byte[] node = wire.received().toByteArray();
    assertEquals(deltas.counts().bytesSent(), node.length);
    assertFalse(contains(node, PROMPT.getBytes(StandardCharsets.UTF_8)), "prompt text");
    for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
      for (int i = 0; i + 1 < prompt.length; i++) {
        ByteBuffer ids = ByteBuffer.allocate(8).order(order);
        ids.putInt((int) prompt[i]).putInt((int) prompt[i + 1]);
        assertFalse(contains(node, ids.array()), "token ids " + i);
        ByteBuffer wide = ByteBuffer.allocate(16).order(order);
        wide.putLong(prompt[i]).putLong(prompt[i + 1]);
        assertFalse(contains(node, wide.array()), "token ids as longs " + i);
      }
      for (double[] row : watched.seen().subList(0, 40)) {
        ByteBuffer floats = ByteBuffer.allocate(12).order(order);
        ByteBuffer doubles = ByteBuffer.allocate(16).order(order);
        for (int j = 0; j < 3; j++) {
          floats.putFloat((float) row[j]);
        }
        doubles.putDouble(row[0]).putDouble(row[1]);
        assertFalse(contains(node, floats.array()), "a hidden state as floats");
        assertFalse(contains(node, doubles.array()), "a hidden state as doubles");
      }
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** A prompt in chunks of 8 (the node's order meters them as prompt) decodes as hosted does. */
  @Test
  void aChunkedPrefill_givesTheSameTokens_andIsMeteredAsPrompt() throws Exception {
    assertTrue(prompt.length > 8, "the prompt must need more than one chunk");
    long[] hosted = hostedGreedy(8);
    ClientKeys client = client();
    FrameOrder order = new FrameOrder(prompt.length, 7, 8);
    ClientDeltas deltas = deltas(client, wire(client, 8, order));
    assertArrayEquals(hosted, greedy(deltas, 8, 8));
    assertEquals(prompt.length, order.promptTokens());
    assertEquals(8, order.completionTokens());
    assertTrue(PrivateLimits.prefillChunk(plan, 64 << 20) >= 8);
  }

  @Test
  void badFrames_areRefused_andTheSessionGoesOn() throws Exception {
    ClientKeys client = client();
    Wire wire = wire(client, 2);
    List<byte[]> sent = new ArrayList<>();
    FrameExchange recording =
        frame -> {
          sent.add(frame);
          return wire.exchange(frame);
        };
    ClientDeltas deltas =
        new ClientDeltas(client, plan, recording, wire.node().terms(), wire.auth());
    try (KvCache cache = decoder.newCache()) {
      decoder.forward(prompt, cache, deltas);
    }
    NodeSession node = wire.node();
    FrameAuth auth = wire.auth().bind(node.terms().opening(plan));
    SessionFrame first = SessionFrame.read(sent.getFirst(), limits());
    assertThrows(
        MalformedFrameException.class, () -> node.answer(sent.getFirst(), limits())); // replayed
    SessionFrame garbled =
        new SessionFrame(
            first.kind(),
            sent.size(),
            1,
            0,
            1,
            List.of(Arrays.copyOf(first.ciphertexts().getFirst(), 100)));
    assertThrows(MalformedFrameException.class, () -> node.answer(sealed(auth, garbled), limits()));
    SessionFrame noSuchGroup =
        new SessionFrame(first.kind(), sent.size(), 1, 999, 1, first.ciphertexts().subList(0, 1));
    assertThrows(
        MalformedFrameException.class, () -> node.answer(sealed(auth, noSuchGroup), limits()));
    // max_tokens 2 allows one decode step: the session still takes it after the refusals.
    try (KvCache cache = decoder.newCache()) {
      ClientDeltas again = deltas(client, wire(client, 2));
      decoder.forward(prompt, cache, again);
      decoder.forward(new long[] {prompt[0]}, cache, again);
      assertThrows(RuntimeException.class, () -> decoder.forward(new long[] {1}, cache, again));
    }
    List<byte[]> shortKeys = client.publicKeys().stream().map(k -> Arrays.copyOf(k, 64)).toList();
    assertThrows(
        MalformedEncodingException.class,
        () ->
            NodeSession.openWithoutNoiseForTesting(
                adapter,
                PrivateBounds.asPackWouldSign(adapter),
                plan,
                shortKeys,
                auth,
                POLICY,
                new FrameOrder(4, 1),
                new SecureRandom()));
    assertThrows(
        MalformedEncodingException.class,
        () ->
            NodeSession.openWithoutNoiseForTesting(
                adapter,
                PrivateBounds.asPackWouldSign(adapter),
                plan,
                List.of(),
                auth,
                POLICY,
                new FrameOrder(4, 1),
                new SecureRandom()));
  }
}
