package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A relay (the marketplace) that alters, replays or swaps frames between a client and a node is
 * refused by the other end (ADR 0037): every frame carries a tag under a key the relay never holds,
 * over its whole bytes, sequence included, and each end checks the sequence it expects.
 */
class RelayTamperingTest {
  private static final long[] PROMPT = {9707, 11, 1246, 653};
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

  private static ClientKeys keys() throws Exception {
    return ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
  }

  private static InProcessNode node(ClientKeys keys) throws Exception {
    return InProcessNode.open(
        adapter, plan, keys, new InputPrivacy(4, 0), new FrameOrder(8, 4), true);
  }

  /** The prefill and one token through {@code relay}; what the client threw, if anything. */
  private static void decode(ClientKeys keys, InProcessNode node, FrameExchange relay) {
    AdapterDeltas deltas = new ClientDeltas(keys, plan, relay, node.session().terms(), node.auth());
    try (KvCache cache = decoder.newCache()) {
      decoder.forward(PROMPT, cache, deltas);
      decoder.forward(new long[] {PROMPT[0]}, cache, deltas);
    }
  }

  private static void refusedByClient(FrameExchange relay, ClientKeys keys, InProcessNode node) {
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> decode(keys, node, relay));
    assertTrue(
        e.getMessage().contains("tag") || e.getMessage().contains("does not match"),
        e.getMessage());
  }

  @Test
  void aFlippedBitInAnAnswer_isRefusedByTheClient() throws Exception {
    ClientKeys keys = keys();
    InProcessNode node = node(keys);
    int[] at = {0};
    refusedByClient(
        frame -> {
          byte[] answer = node.exchange(frame);
          if (++at[0] == 3) {
            answer[answer.length / 2] ^= 0x10; // inside a ciphertext
          }
          return answer;
        },
        keys,
        node);
  }

  @Test
  void aReplayedAnswer_isRefusedByTheClient() throws Exception {
    ClientKeys keys = keys();
    InProcessNode node = node(keys);
    List<byte[]> answers = new ArrayList<>();
    refusedByClient(
        frame -> {
          byte[] answer = node.exchange(frame);
          answers.add(answer);
          // The fourth frame is answered with the second's answer (a genuine, tagged one).
          return answers.size() == 4 ? answers.get(1) : answer;
        },
        keys,
        node);
  }

  @Test
  void answersSwappedBetweenTwoSessions_areRefusedByTheClient() throws Exception {
    ClientKeys otherKeys = keys();
    InProcessNode other = node(otherKeys);
    List<byte[]> otherAnswers = new ArrayList<>();
    decode(
        otherKeys,
        other,
        frame -> {
          byte[] answer = other.exchange(frame);
          otherAnswers.add(answer);
          return answer;
        });
    ClientKeys keys = keys();
    InProcessNode mine = node(keys);
    int[] at = {0};
    // The relay answers this session's frame with the other session's answer of the same place:
    // same sequence, same shape, tagged under the other session's key.
    refusedByClient(
        frame -> {
          byte[] answer = mine.exchange(frame);
          return ++at[0] == 2 ? otherAnswers.get(1) : answer;
        },
        keys,
        mine);
  }

  @Test
  void theNode_refusesAlteredFrames_framesOfAnotherSession_andReplays() throws Exception {
    ClientKeys keys = keys();
    InProcessNode node = node(keys);
    InProcessNode other = node(keys);
    List<byte[]> sent = new ArrayList<>();
    decode(
        keys,
        node,
        frame -> {
          sent.add(frame);
          return node.exchange(frame);
        });
    byte[] first = sent.getFirst();
    // Into a fresh session of the same keys: tagged under another session's frame key.
    assertThrows(
        MalformedFrameException.class, () -> other.session().answer(first, InProcessNode.LIMITS));
    // A flipped bit anywhere (header, nonce or body) into the session it was sealed for.
    for (int i : new int[] {5, 20, first.length - 1}) {
      byte[] altered = first.clone();
      altered[i] ^= 1;
      MalformedFrameException e =
          assertThrows(
              MalformedFrameException.class,
              () -> node.session().answer(altered, InProcessNode.LIMITS));
      assertTrue(e.getMessage().contains("tag"), e.getMessage());
    }
    // The genuine frame again: its tag holds, its sequence is spent.
    assertThrows(
        MalformedFrameException.class, () -> node.session().answer(first, InProcessNode.LIMITS));
  }

  /**
   * The opening's terms are not tagged themselves, but both ends bind their frame keys to them: a
   * relay that swapped the upload seed key (the client would encrypt under c1s the node does not
   * expand, and decode nonsense) makes the first frame fail instead.
   */
  @Test
  void anAlteredOpening_failsTheFirstFrame() throws Exception {
    ClientKeys keys = keys();
    InProcessNode node = node(keys);
    byte[] other = new byte[io.tensafe.kernels.protocol.UploadSeeds.KEY_BYTES];
    new SecureRandom().nextBytes(other);
    SessionTerms altered =
        new SessionTerms(
            node.session().terms().scales(), new io.tensafe.kernels.protocol.UploadSeeds(other));
    AdapterDeltas deltas = new ClientDeltas(keys, plan, node, altered, node.auth());
    UncheckedIOException e =
        assertThrows(
            UncheckedIOException.class,
            () -> {
              try (KvCache cache = decoder.newCache()) {
                decoder.forward(PROMPT, cache, deltas);
              }
            });
    assertTrue(e.getMessage().contains("tag"), e.getMessage());
    assertEquals(1, node.received().size(), "refused at the first frame");
  }
}
