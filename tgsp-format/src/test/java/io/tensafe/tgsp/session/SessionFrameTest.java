package io.tensafe.tgsp.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionFrameTest {
  private static final FrameLimits LIMITS = new FrameLimits(1 << 16, 8, 1024);

  private static SessionFrame frame(
      FrameKind kind, long seq, long step, int group, int tokens, int count) {
    byte[][] cts = new byte[count][];
    for (int i = 0; i < count; i++) {
      cts[i] = new byte[] {(byte) i, 7, 9};
    }
    return new SessionFrame(kind, seq, step, group, tokens, Arrays.asList(cts));
  }

  @Test
  void aFrame_readsBackAsWritten() throws Exception {
    SessionFrame f = frame(FrameKind.ROUND_TWO, 4_000_000_000L, 3, 65535, 2, 4);
    SessionFrame back = SessionFrame.read(f.toBytes(), LIMITS);
    assertEquals(f.kind(), back.kind());
    assertEquals(f.sequence(), back.sequence());
    assertEquals(f.step(), back.step());
    assertEquals(f.group(), back.group());
    assertEquals(f.tokens(), back.tokens());
    for (int i = 0; i < 4; i++) {
      assertArrayEquals(f.ciphertexts().get(i), back.ciphertexts().get(i));
    }
  }

  @Test
  void aHeader_readsFromItsFirstBytesAlone_andTheOrderAcceptsIt() throws Exception {
    SessionFrame f = frame(FrameKind.ROUND_ONE, 0, 0, 3, 2, 4);
    byte[] head = Arrays.copyOf(f.toBytes(), FrameHeader.BYTES);
    FrameHeader h = FrameHeader.read(head, LIMITS);
    assertEquals(f.header(), h);
    assertEquals(new FrameHeader(FrameKind.ROUND_ONE, 0, 0, 3, 2, 4), h);
    assertArrayEquals(head, h.toBytes());
    FrameOrder order = new FrameOrder(8, 0);
    order.accept(h);
    assertEquals(1, order.frames());
    assertEquals(2, order.promptTokens());
    assertThrows(
        MalformedFrameException.class,
        () -> FrameHeader.read(Arrays.copyOf(head, FrameHeader.BYTES - 1), LIMITS));
    assertThrows(
        MalformedFrameException.class,
        () -> FrameHeader.read(head, new FrameLimits(1 << 16, 3, 1024)));
  }

  @Test
  void badBytes_areRefusedBeforeAllocation() {
    byte[] good = frame(FrameKind.ROUND_ONE, 0, 0, 0, 2, 2).toBytes();
    byte[] badMagic = good.clone();
    badMagic[0] = 'X';
    assertThrows(MalformedFrameException.class, () -> SessionFrame.read(badMagic, LIMITS));
    assertThrows(
        MalformedFrameException.class,
        () -> SessionFrame.read(Arrays.copyOf(good, good.length - 1), LIMITS));
    assertThrows(
        MalformedFrameException.class,
        () -> SessionFrame.read(Arrays.copyOf(good, good.length + 1), LIMITS));
    assertThrows(
        MalformedFrameException.class,
        () -> SessionFrame.read(good, new FrameLimits(good.length - 1, 8, 1024)));
    assertThrows(
        MalformedFrameException.class,
        () -> SessionFrame.read(good, new FrameLimits(1 << 16, 1, 1024)));
    // A length that claims 2^32-1 bytes is refused by its limit, not allocated.
    byte[] huge = good.clone();
    ByteBuffer.wrap(huge).putInt(SessionFrame.HEADER_BYTES, -1);
    assertThrows(MalformedFrameException.class, () -> SessionFrame.read(huge, LIMITS));
    byte[] badKind = good.clone();
    badKind[4] = 9;
    assertThrows(MalformedFrameException.class, () -> SessionFrame.read(badKind, LIMITS));
  }

  @Test
  void theOrder_metersPrefillAndDecodeSteps() throws Exception {
    FrameOrder order = new FrameOrder(10, 2);
    assertEquals(0, order.completionTokens());
    order.accept(frame(FrameKind.ROUND_ONE, 0, 0, 0, 5, 5));
    assertEquals(5, order.promptTokens());
    assertEquals(1, order.completionTokens());
    order.accept(frame(FrameKind.ROUND_TWO, 1, 0, 0, 5, 15));
    order.accept(frame(FrameKind.ROUND_ONE, 2, 0, 3, 5, 5));
    order.accept(frame(FrameKind.ROUND_TWO, 3, 0, 3, 5, 5));
    order.accept(frame(FrameKind.ROUND_ONE, 4, 1, 0, 1, 1));
    order.accept(frame(FrameKind.ROUND_TWO, 5, 1, 0, 1, 3));
    order.accept(frame(FrameKind.ROUND_ONE, 6, 2, 0, 1, 1));
    order.accept(frame(FrameKind.ROUND_TWO, 7, 2, 0, 1, 1));
    assertEquals(5, order.promptTokens());
    assertEquals(3, order.completionTokens());
    // max_tokens 3 allows two decode steps
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 8, 3, 0, 1, 1)));
    assertEquals(8, order.frames());
  }

  @Test
  void framesOutOfOrder_replayedOrMisshapen_areRefused() throws Exception {
    FrameOrder order = new FrameOrder(4, 5);
    SessionFrame first = frame(FrameKind.ROUND_ONE, 0, 0, 0, 4, 4);
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 0, 0, 0, 5, 5)));
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 0, 0, 0, 4, 3)));
    // An input in 1 to 16 chunks per token, the same for every token.
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 0, 0, 0, 4, 6)));
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 0, 0, 0, 1, 17)));
    order.copy().accept(frame(FrameKind.ROUND_ONE, 0, 0, 0, 4, 64));
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 0, 1, 0, 1, 1)));
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_TWO, 0, 0, 0, 4, 4)));
    assertThrows(MalformedFrameException.class, () -> order.accept(first.answer(List.of())));
    order.accept(first);
    List<SessionFrame> bad =
        List.of(
            first, // replayed
            frame(FrameKind.ROUND_ONE, 1, 0, 1, 4, 4), // round two missing
            frame(FrameKind.ROUND_TWO, 1, 0, 1, 4, 4), // another group
            frame(FrameKind.ROUND_TWO, 1, 0, 0, 4, 4 * 49), // over 3 sites × 16 chunks
            frame(FrameKind.ROUND_TWO, 1, 0, 0, 4, 6), // not a multiple of the tokens
            frame(FrameKind.ROUND_TWO, 2, 0, 0, 4, 4)); // a gap
    for (SessionFrame f : bad) {
      assertThrows(MalformedFrameException.class, () -> order.accept(f));
    }
    order.accept(frame(FrameKind.ROUND_TWO, 1, 0, 0, 4, 8));
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 2, 0, 0, 4, 4)));
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 2, 1, 0, 2, 2)));
    assertEquals(1, order.completionTokens());
    FrameOrder copy = order.copy();
    copy.accept(frame(FrameKind.ROUND_ONE, 2, 1, 0, 1, 1));
    assertEquals(2, copy.completionTokens());
    assertEquals(1, order.completionTokens(), "a copy moves on alone");
    assertEquals(2, order.frames());
  }

  /** Both rounds of one group of one step. */
  private static long step(FrameOrder order, long seq, long step, int tokens) throws Exception {
    order.accept(frame(FrameKind.ROUND_ONE, seq, step, 0, tokens, tokens));
    order.accept(frame(FrameKind.ROUND_TWO, seq + 1, step, 0, tokens, tokens));
    return seq + 2;
  }

  @Test
  void aChunkedPrefill_isMeteredAsPrompt_andEndsAtItsFirstShortStep() throws Exception {
    FrameOrder order = new FrameOrder(30, 3, 8);
    long seq = step(order, 0, 0, 8);
    seq = step(order, seq, 1, 8);
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, 4, 2, 0, 9, 9)),
        "more than a chunk");
    seq = step(order, seq, 2, 5); // the last, short chunk ends the prefill
    assertEquals(21, order.promptTokens());
    assertEquals(1, order.completionTokens());
    long at = seq;
    assertThrows(
        MalformedFrameException.class,
        () -> order.accept(frame(FrameKind.ROUND_ONE, at, 3, 0, 2, 2)),
        "decode steps have one token");
    seq = step(order, seq, 3, 1);
    assertEquals(21, order.promptTokens());
    assertEquals(2, order.completionTokens());
    FrameOrder full = new FrameOrder(16, 3, 8);
    long s2 = step(full, 0, 0, 8);
    s2 = step(full, s2, 1, 8); // the prompt bound reached: the prefill is over
    step(full, s2, 2, 1);
    assertEquals(16, full.promptTokens());
    assertEquals(2, full.completionTokens());
    assertThrows(IllegalArgumentException.class, () -> new FrameOrder(16, 3, 2));
  }
}
