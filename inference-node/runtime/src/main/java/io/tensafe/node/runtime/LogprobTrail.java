package io.tensafe.node.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One choice's {@link TokenLogprob} entries, each held until the text it stands for is streamed: an
 * entry rides on the first piece that reaches past where its text starts, so the entries a stream's
 * pieces carry are the tokens of its text, in order. At the end, entries whose text starts at or
 * after the answer's end (tokens inside a stop string that cut the text) are dropped; the
 * end-of-sequence token has none. Not thread-safe: one sequence, one thread.
 */
final class LogprobTrail {
  /** An entry and where its text starts in the generated text. */
  private record Held(int start, TokenLogprob entry) {}

  private final int top;
  private final Function<long[], String[]> decodeEach;
  private final List<Held> held = new ArrayList<>();
  private final List<TokenLogprob> delivered = new ArrayList<>();

  /** Chars of the generated text that entries already stand for. */
  private int accounted;

  /**
   * @param top alternatives per entry, 0 to {@link LogProbabilities#MAX_TOP}
   * @param decodeEach each id's text decoded alone (for the alternatives)
   */
  LogprobTrail(int top, Function<long[], String[]> decodeEach) {
    this.top = top;
    this.decodeEach = decodeEach;
  }

  /**
   * Records the token {@code chosen}, drawn from {@code logits}, after which the tokens so far
   * decode to {@code decoded} (before any stop string cuts it). A text ending in U+FFFD ends inside
   * a multi-byte character: the token gets an empty text, and the one completing it carries it.
   */
  void add(float[] logits, int chosen, String decoded) {
    boolean partial = decoded.endsWith("\uFFFD") || decoded.length() < accounted;
    String text = partial ? "" : decoded.substring(accounted);
    held.add(new Held(accounted, LogProbabilities.entry(logits, chosen, text, top, decodeEach)));
    if (!partial) {
      accounted = decoded.length();
    }
  }

  /** The held entries whose text starts before {@code end}: those a piece ending there carries. */
  List<TokenLogprob> upTo(int end) {
    List<TokenLogprob> out = new ArrayList<>();
    while (!held.isEmpty() && held.getFirst().start() < end) {
      out.add(held.removeFirst().entry());
    }
    delivered.addAll(out);
    return out;
  }

  /** Every entry passed on so far, in order. */
  List<TokenLogprob> delivered() {
    return List.copyOf(delivered);
  }
}
