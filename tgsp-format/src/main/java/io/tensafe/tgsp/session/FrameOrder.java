package io.tensafe.tgsp.session;

/**
 * The order a private session's client frames must follow, and the tokens they meter (ADR 0017).
 * The marketplace and the node each keep one per session and check every client frame with it, so
 * neither bills nor computes from a frame out of order, replayed, or shaped to be metered short.
 *
 * <p>Rules: sequences run 0, 1, 2, … with no gap or repeat. Steps run 0, 1, 2, …. The prefill is
 * one or more steps of exactly {@code prefillChunk} tokens, at most {@code maxPromptTokens} in all,
 * and ends with the first step of fewer tokens or when it reaches {@code maxPromptTokens} (a client
 * declares its prompt's length as that bound); then come decode steps of one token each, at most
 * {@code maxDecodeSteps}. Within a step, groups strictly increase; each group is a round one (one
 * to {@link #MAX_INPUT_CHUNKS} ciphertexts per token, the same for every token) followed by its
 * round two (one to {@link #MAX_SITES_PER_GROUP} × {@link #MAX_INPUT_CHUNKS} ciphertexts per token:
 * each site's shares in chunks). A step starts only after the previous one's last round two.
 *
 * <p>Metering: prompt tokens are the prefill steps' tokens; completion tokens are 1 once the
 * prefill has begun (its last logits give the first token) plus one per decode step begun. A step
 * is billed from its first round one, whatever follows. A client cannot pass decode tokens off as
 * cheaper prompt tokens for less than a whole chunk each: with chunks of at least {@link
 * #MIN_PREFILL_CHUNK} tokens that costs more than it saves at any sane price ratio. Not
 * thread-safe: the owner serialises a session's frames.
 */
public final class FrameOrder {
  /** Sites that read one input: q, k and v. */
  public static final int MAX_SITES_PER_GROUP = 3;

  /**
   * The most ciphertexts one token's input (round one) or one site's shares (round two) may be
   * split into (ADR 0018).
   */
  public static final int MAX_INPUT_CHUNKS = 16;

  /** The smallest prefill chunk a session may use. */
  public static final int MIN_PREFILL_CHUNK = 8;

  private final int maxPromptTokens;
  private final int prefillChunk;
  private boolean inPrefill = true;
  private final long maxDecodeSteps;
  private long nextSequence;
  private long step = -1;
  private int group = -1;
  private int tokens;
  private boolean awaitingRoundTwo;
  private int promptTokens;
  private long decodeSteps;

  /** A session whose prefill is one step (no chunking). */
  public FrameOrder(int maxPromptTokens, long maxDecodeSteps) {
    this(maxPromptTokens, maxDecodeSteps, 0xFFFF);
  }

  /**
   * @param maxPromptTokens the prefill's largest token count, in [1, 65535]
   * @param maxDecodeSteps decode steps allowed (max_tokens − 1), ≥ 0
   * @param prefillChunk the tokens of every prefill step but the last, in [{@link
   *     #MIN_PREFILL_CHUNK}, 65535]
   */
  public FrameOrder(int maxPromptTokens, long maxDecodeSteps, int prefillChunk) {
    if (maxPromptTokens < 1
        || maxPromptTokens > 0xFFFF
        || maxDecodeSteps < 0
        || prefillChunk < MIN_PREFILL_CHUNK
        || prefillChunk > 0xFFFF) {
      throw new IllegalArgumentException("prompt, decode and chunk bounds out of range");
    }
    this.maxPromptTokens = maxPromptTokens;
    this.maxDecodeSteps = maxDecodeSteps;
    this.prefillChunk = prefillChunk;
  }

  /**
   * Accepts {@code frame} as the session's next client frame, or throws and changes nothing.
   *
   * @throws MalformedFrameException naming the rule the frame breaks
   */
  public void accept(SessionFrame frame) throws MalformedFrameException {
    accept(frame.header());
  }

  /**
   * As {@link #accept(SessionFrame)}, from the frame's header alone (its ciphertext count stands
   * for the ciphertexts): a relay checks the order before it has read, or while it streams, the
   * ciphertexts.
   *
   * @throws MalformedFrameException naming the rule the frame breaks
   */
  public void accept(FrameHeader frame) throws MalformedFrameException {
    if (frame.kind() == FrameKind.ANSWER) {
      throw new MalformedFrameException("a client may not send an answer frame");
    }
    if (frame.sequence() != nextSequence) {
      throw new MalformedFrameException(
          "frame sequence "
              + frame.sequence()
              + " where "
              + nextSequence
              + " was expected (replayed, lost or reordered)");
    }
    if (frame.kind() == FrameKind.ROUND_ONE) {
      acceptRoundOne(frame);
    } else {
      acceptRoundTwo(frame);
    }
    nextSequence++;
  }

  private void acceptRoundOne(FrameHeader f) throws MalformedFrameException {
    if (awaitingRoundTwo) {
      throw new MalformedFrameException(
          "group " + group + " of step " + step + " needs its round two");
    }
    int count = f.count();
    if (count % f.tokens() != 0
        || count / f.tokens() < 1
        || count / f.tokens() > MAX_INPUT_CHUNKS) {
      throw new MalformedFrameException(
          "a round one carries 1 to "
              + MAX_INPUT_CHUNKS
              + " ciphertexts per token: "
              + f.tokens()
              + " tokens, "
              + count
              + " ciphertexts");
    }
    if (f.step() == step) {
      if (f.group() <= group) {
        throw new MalformedFrameException(
            "group " + f.group() + " after group " + group + " in step " + step);
      }
      if (f.tokens() != tokens) {
        throw new MalformedFrameException("step " + step + " has " + tokens + " tokens");
      }
    } else if (f.step() == step + 1) {
      startStep(f);
    } else {
      throw new MalformedFrameException("step " + f.step() + " after step " + step);
    }
    group = f.group();
    awaitingRoundTwo = true;
  }

  private void startStep(FrameHeader f) throws MalformedFrameException {
    if (inPrefill) {
      if (f.tokens() > prefillChunk) {
        throw new MalformedFrameException(
            "a prefill step has at most " + prefillChunk + " tokens, not " + f.tokens());
      }
      if (promptTokens + f.tokens() > maxPromptTokens) {
        throw new MalformedFrameException(
            "the prefill has "
                + (promptTokens + f.tokens())
                + " tokens, over the session's "
                + maxPromptTokens);
      }
      promptTokens += f.tokens();
      inPrefill = f.tokens() == prefillChunk && promptTokens < maxPromptTokens;
    } else {
      if (f.tokens() != 1) {
        throw new MalformedFrameException("a decode step has one token, not " + f.tokens());
      }
      if (decodeSteps >= maxDecodeSteps) {
        throw new MalformedFrameException(
            "the session's max_tokens allows " + maxDecodeSteps + " decode steps");
      }
      decodeSteps++;
    }
    step = f.step();
    tokens = f.tokens();
  }

  private void acceptRoundTwo(FrameHeader f) throws MalformedFrameException {
    if (!awaitingRoundTwo || f.step() != step || f.group() != group || f.tokens() != tokens) {
      throw new MalformedFrameException(
          "a round two must follow the round one of its step and group");
    }
    int count = f.count();
    int most = MAX_SITES_PER_GROUP * MAX_INPUT_CHUNKS;
    if (count % tokens != 0 || count / tokens < 1 || count / tokens > most) {
      throw new MalformedFrameException(
          "a round two carries 1 to "
              + most
              + " ciphertexts per token: "
              + count
              + " for "
              + tokens
              + " tokens");
    }
    awaitingRoundTwo = false;
  }

  /**
   * An independent copy in the same state: a relay accepts a frame on a copy and keeps it only once
   * the node has answered, so a frame the node refused or never answered is neither counted nor
   * billed.
   */
  public FrameOrder copy() {
    FrameOrder c = new FrameOrder(maxPromptTokens, maxDecodeSteps, prefillChunk);
    c.inPrefill = inPrefill;
    c.nextSequence = nextSequence;
    c.step = step;
    c.group = group;
    c.tokens = tokens;
    c.awaitingRoundTwo = awaitingRoundTwo;
    c.promptTokens = promptTokens;
    c.decodeSteps = decodeSteps;
    return c;
  }

  /** The tokens of every prefill step but the last. */
  public int prefillChunk() {
    return prefillChunk;
  }

  /** The prefill's tokens, 0 before it begins. */
  public int promptTokens() {
    return promptTokens;
  }

  /** Tokens the client could sample from what it was served: 0, or 1 + decode steps. */
  public long completionTokens() {
    return step < 0 ? 0 : 1 + decodeSteps;
  }

  /** Client frames accepted so far. */
  public long frames() {
    return nextSequence;
  }
}
