package io.tensafe.marketplace.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeCall;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.privacy.ReleaseCount;
import io.tensafe.marketplace.privacy.Reservation;
import java.io.IOException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.OptionalLong;

/**
 * One dispatched hosted request, from its node's first event to its bill. The caller gives it a
 * {@link Sink} that passes each piece on to the client ({@link #relay}), or takes the whole answer
 * ({@link #relayWhole}), and says only what reached the client; the relay ends the request once,
 * completed, client gone or node failed, billing what was relayed ({@link RelayedText}) and giving
 * back the node's and the key's slot. {@link #endEarly} ends a request whose client left before its
 * stream started. At the first piece, and then after {@value #PERSIST_EVERY} more pieces or {@link
 * #PERSIST_AFTER_NANOS} (a second), whichever comes first, the relayed count is written to the
 * request's record, so that if this marketplace dies mid-stream the request is billed that, at most
 * a second behind ({@link Settlement#settleLost}); while it relays, the replica vouches for it
 * ({@link LiveRequests}). A node sending more than {@code max_tokens} allows fails. Thread-confined
 * to the request's thread.
 *
 * <p>A request with {@code n} choices (ADR 0044) reads each piece with its choice's index and keeps
 * each choice's text apart ({@link RelayedChoices}): each choice is held to {@code max_tokens} on
 * its own, the bill is the sum of what each relayed, and the DP settlement counts every choice's
 * tokens over the one prompt run. Log-probability entries ride on the pieces, checked ({@link
 * LogprobEntries}); they never change what is billed.
 */
public final class HostedRelay {
  /** Relayed pieces between two writes of the relayed count, at most. */
  static final int PERSIST_EVERY = 64;

  /** Time between two writes of the relayed count, at most: one second, in nanoseconds. */
  static final long PERSIST_AFTER_NANOS = 1_000_000_000L;

  /** {@code System.nanoTime()} at the last write of the relayed count. */
  private long persistedAtNanos;

  /** Pieces relayed at the last write of the relayed count. */
  private int persistedPieces;

  private final Services owner;
  private final ApiKeyPrincipal key;
  private final MeteredRequest metered;
  private final Dispatched<NodeCall> d;
  private final int promptTokens;

  /** What was read from the node and how much of it was passed on, per choice. */
  private final RelayedChoices relayed;

  /** The client's {@code max_tokens}: each choice's bound. */
  private final int maxTokens;

  /** The {@code top_logprobs} asked for, or -1 when {@code logprobs} was not. */
  private final int topLogprobs;

  private JsonNode last;
  private final int[] piecesRead;
  private final long[] bytesRead;
  private final int[] entriesRead;

  /**
   * Per choice, with logprobs asked: the text relayed and the chosen tokens' text so far, which
   * must spell it (ADR 0044, after an adversarial review), and the alternatives' chars read.
   */
  private final StringBuilder[] textRead;

  private final StringBuilder[] entryText;
  private final long[] alternativeChars;
  private final int[] spelled;
  private final int[] lastTokenChars;

  /** Each choice's entries, kept for a whole answer ({@link #relayWhole}); null when streamed. */
  private com.fasterxml.jackson.databind.node.ArrayNode[] kept;

  /** What a relay bills and gives back through; shared by every relay. */
  record Services(
      GatewayRequests requests,
      Settlement settlement,
      GatewayMetrics metrics,
      GatewayConfig gateway) {}

  /**
   * The most UTF-8 bytes a node may send per token of {@code max_tokens}: far above any token of
   * the models served (a byte-level BPE token is a few bytes; the longest are runs of whitespace or
   * punctuation), so only a node padding its answer reaches it.
   */
  static final int MAX_BYTES_PER_TOKEN = 256;

  HostedRelay(
      Services owner,
      ApiKeyPrincipal key,
      MeteredRequest metered,
      Dispatched<NodeCall> d,
      int promptTokens,
      RelayedChoices relayed,
      int maxTokens,
      int topLogprobs) {
    this.owner = owner;
    this.key = key;
    this.metered = metered;
    this.d = d;
    this.promptTokens = promptTokens;
    this.relayed = relayed;
    this.maxTokens = maxTokens;
    this.topLogprobs = topLogprobs;
    this.piecesRead = new int[relayed.count()];
    this.bytesRead = new long[relayed.count()];
    this.entriesRead = new int[relayed.count()];
    this.textRead = new StringBuilder[relayed.count()];
    this.entryText = new StringBuilder[relayed.count()];
    this.alternativeChars = new long[relayed.count()];
    this.spelled = new int[relayed.count()];
    this.lastTokenChars = new int[relayed.count()];
  }

  /**
   * One piece read from the node.
   *
   * @param index its choice, 0 to n − 1
   * @param text its text
   * @param logprobs the log-probability entries of the tokens its text starts, in OpenAI's shape
   *     ({@link LogprobEntries}); null when the request asked for none
   */
  public record Piece(
      int index, String text, com.fasterxml.jackson.databind.node.ArrayNode logprobs) {}

  /**
   * What a client is sent of a streamed answer, piece by piece; the relay decides from what it says
   * what is billed and how the request ends ({@link #relay}). Thread-confined to the request's
   * thread.
   */
  public interface Sink {
    /**
     * Passes on a piece read from the node.
     *
     * @return what reached the client of the piece's choice ({@link Passed})
     * @throws ClientGone when writing to the client failed: the client went away
     */
    Passed send(Piece piece) throws ClientGone;

    /**
     * Passes on what the sink still holds of choice {@code index} once the node's final event
     * arrived; called for each choice in order.
     *
     * @throws ClientGone as {@link #send}
     */
    Passed end(int index) throws ClientGone;
  }

  /**
   * What a {@link Sink} passed on: nothing ({@link #NOTHING}: held back or dropped), the text as
   * read ({@link #AS_READ}), or a text written from it ({@link #as}: a tool call's name and
   * arguments), which is what is billed.
   */
  public record Passed(boolean any, String rewritten) {
    public static final Passed NOTHING = new Passed(false, null);
    public static final Passed AS_READ = new Passed(true, null);

    /** {@code delivered} reached the client, written from what was read. */
    public static Passed as(String delivered) {
      return new Passed(true, delivered);
    }
  }

  /** Writing to the client failed: the client went away. */
  public static final class ClientGone extends IOException {
    public ClientGone(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /**
   * The node failed mid-generation; the request has ended, billed what was relayed. Its message is
   * fixed text and the request id ({@link #nodeFailedMessage}), never the node's words.
   */
  public static final class NodeFailed extends IOException {
    NodeFailed(String message) {
      super(message);
    }
  }

  /**
   * Relays the node's answer to {@code sink} and ends the request once, as what happened decides:
   * billed as completed (or {@code empty}) when the node's final event arrived and everything the
   * sink held was passed on; ended as {@code client_gone} when the sink could not write; ended as
   * {@code node_failed} when the node failed. Callers only say what reached the client; they never
   * decide when or what the request is billed.
   *
   * @return the bill, once the request is completed
   * @throws ClientGone the client went away (the request has ended, billed what it was sent)
   * @throws NodeFailed the node failed (the request has ended, billed what was relayed)
   */
  public Finished relay(Sink sink) throws ClientGone, NodeFailed {
    try {
      for (Piece piece = nextDelta(); piece != null; piece = nextDelta()) {
        mark(piece.index(), sink.send(piece));
      }
      for (int i = 0; i < relayed.count(); i++) {
        mark(i, sink.end(i));
      }
    } catch (ClientGone e) {
      endEarly(RequestOutcome.CLIENT_GONE);
      throw e;
    } catch (IOException | RuntimeException e) {
      nodeFailed(e);
      throw new NodeFailed(nodeFailedMessage());
    }
    return finish();
  }

  /**
   * Reads the node's whole answer, passes it on at once (an answer that is not streamed: its client
   * gets nothing before the end) and bills it.
   *
   * @param delivered what the client receives of each choice's whole text (a tool call's name and
   *     arguments), or null when it receives the text as read
   * @return each choice's text read (and entries) and the bill
   * @throws NodeFailed the node failed before its end (the request has ended; nothing reached the
   *     client, so nothing is billed)
   */
  public Whole relayWhole(java.util.function.UnaryOperator<String> delivered) throws NodeFailed {
    kept = new com.fasterxml.jackson.databind.node.ArrayNode[relayed.count()];
    try {
      readToEnd();
    } catch (IOException | RuntimeException e) {
      nodeFailed(e);
      throw new NodeFailed(nodeFailedMessage() + "; nothing was billed");
    }
    // Reached the client at once, at its end: nothing is recorded before (finish records it).
    List<String> texts = relayed.texts();
    for (int i = 0; i < texts.size(); i++) {
      if (delivered == null) {
        relayed.choice(i).relayedAll();
      } else {
        relayed.choice(i).relayedAs(delivered.apply(texts.get(i)));
      }
    }
    List<com.fasterxml.jackson.databind.node.ArrayNode> entries =
        topLogprobs < 0
            ? null
            : java.util.Arrays.stream(kept)
                .map(
                    a ->
                        a == null
                            ? com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                                .arrayNode()
                            : a)
                .toList();
    return new Whole(texts, entries, finish());
  }

  /**
   * A whole answer: each choice's text read from the node, its log-probability entries (null when
   * not asked for), and what the request was billed.
   */
  public record Whole(
      List<String> texts,
      List<com.fasterxml.jackson.databind.node.ArrayNode> logprobs,
      Finished billed) {}

  private void mark(int index, Passed passed) {
    if (!passed.any()) {
      return;
    }
    if (passed.rewritten() == null) {
      relayed.choice(index).relayedAll();
    } else {
      relayed.choice(index).relayedAs(passed.rewritten());
    }
    persistCount();
  }

  /** What a finished request was billed, and its node's final event (HE and DP statistics). */
  public record Finished(
      Settlement.Settled settled, int promptTokens, int completionTokens, JsonNode finalEvent) {
    /** Choice {@code index}'s finish reason as its node said ({@link #finishReasons}). */
    public String finishReason(int index) {
      return finishReasons(finalEvent, index + 1).get(index);
    }
  }

  /**
   * Checks that choice {@code index}'s chosen tokens, with {@code entries} of piece {@code piece},
   * still spell the text it relayed: equal where both run, and ahead of it by at most one token
   * ({@link LogprobEntries#MAX_TOKEN_CHARS}; a token's entry rides on the piece its text starts
   * in); and that its alternatives average at most {@value #MAX_ALTERNATIVE_CHARS} chars. So an
   * answer cannot reach a client through entries unbilled, and what a node sends as entries is
   * bounded by the billed text.
   *
   * @throws IOException when they do not (the node then failed the request)
   */
  private void spells(
      int index, String piece, com.fasterxml.jackson.databind.node.ArrayNode entries)
      throws IOException {
    if (textRead[index] == null) {
      textRead[index] = new StringBuilder();
      entryText[index] = new StringBuilder();
    }
    StringBuilder text = textRead[index].append(piece);
    StringBuilder tokens = entryText[index];
    for (JsonNode e : entries) {
      String token = e.path("token").asText();
      tokens.append(token);
      lastTokenChars[index] = token.length();
      for (JsonNode a : e.path("top_logprobs")) {
        alternativeChars[index] += a.path("token").asText().length();
      }
    }
    int common = Math.min(tokens.length(), text.length());
    if (tokens.length() - lastTokenChars[index] > text.length()
        || !tokens
            .substring(spelled[index], common)
            .equals(text.substring(spelled[index], common))) {
      throw new IOException("the node sent logprobs entries that do not spell the text it sent");
    }
    spelled[index] = common;
    if (alternativeChars[index]
        > (long) MAX_ALTERNATIVE_CHARS * topLogprobs * Math.max(1, entriesRead[index])
            + LogprobEntries.MAX_TOKEN_CHARS) {
      throw new IOException("the node sent top_logprobs alternatives longer than tokens are");
    }
  }

  /** The most chars an entry's alternatives may average: several times any model's mean token. */
  static final int MAX_ALTERNATIVE_CHARS = 16;

  /**
   * The finish reason of each of {@code count} choices in a node's final event: its {@code
   * choices[i].finish_reason}, else the event's own {@code finish_reason} (a node's answer to a
   * request of one choice may carry no {@code choices}).
   */
  static List<String> finishReasons(JsonNode finalEvent, int count) {
    String whole = finalEvent.path("finish_reason").asText();
    String[] out = new String[count];
    java.util.Arrays.fill(out, whole);
    for (JsonNode c : finalEvent.path("choices")) {
      int i = c.path("index").asInt(-1);
      if (i >= 0 && i < count && c.path("finish_reason").isTextual()) {
        out[i] = c.path("finish_reason").asText();
      }
    }
    return List.of(out);
  }

  /**
   * The node's next piece of text, or null once its final event arrived ({@link #finalEvent}).
   *
   * @throws IOException when the node reports an error, its stream ends without a final event, or
   *     it sends more than {@code max_tokens} allows: more pieces than tokens (an honest node sends
   *     at most one a token), or more than {@value #MAX_BYTES_PER_TOKEN} bytes a token
   */
  private Piece nextDelta() throws IOException {
    for (JsonNode event = d.call().next(); event != null; event = d.call().next()) {
      if (event.has("delta")) {
        String piece = event.get("delta").asText();
        int index = event.path("index").asInt(0);
        if (!event.path("index").isMissingNode() && !event.path("index").isInt()
            || index < 0
            || index >= relayed.count()) {
          throw new IOException("the node sent a piece of a choice the request did not ask for");
        }
        if (!piece.isEmpty()) {
          d.call().progressed();
        }
        piecesRead[index]++;
        bytesRead[index] += piece.length() * 3L; // at most 3 UTF-8 bytes per UTF-16 unit
        if (piecesRead[index] > maxTokens
            || bytesRead[index] > (long) maxTokens * MAX_BYTES_PER_TOKEN) {
          throw new IOException(
              "the node sent more than the request's max_tokens (" + maxTokens + ") allows");
        }
        com.fasterxml.jackson.databind.node.ArrayNode entries = null;
        if (topLogprobs >= 0) {
          entries = LogprobEntries.checked(event.get("logprobs"), topLogprobs);
          entriesRead[index] += entries.size();
          if (entriesRead[index] > maxTokens) {
            throw new IOException(
                "the node sent more logprobs entries than the request's max_tokens ("
                    + maxTokens
                    + ") allows");
          }
          spells(index, piece, entries);
          if (kept != null) {
            if (kept[index] == null) {
              kept[index] =
                  com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
            }
            kept[index].addAll(entries);
          }
        }
        relayed.choice(index).read(piece);
        return new Piece(index, piece, entries);
      } else if (event.has("usage")) {
        d.call().progressed();
        last = event;
        return null;
      } else if (event.has("status")) {
        throw new IOException(event.path("detail").asText("the node reported an error"));
      }
    }
    throw new IOException("the node's stream ended without its final usage event");
  }

  /**
   * Reads the node's stream to its final event (an answer that is not streamed).
   *
   * @throws IOException as {@link #nextDelta}
   */
  private void readToEnd() throws IOException {
    while (nextDelta() != null) {
      // each piece is kept; none is passed on yet
    }
  }

  /** The node's final event; null before {@link #nextDelta} returned null. */
  public JsonNode finalEvent() {
    return last;
  }

  /**
   * After a piece reached the client ({@link #mark}: as read, or re-written, as tool calls are, in
   * which case the bill counts what was passed, never the rest of what the node sent): at the first
   * piece, then after {@value #PERSIST_EVERY} more or a second, the relayed count (every choice's)
   * is written to the request's record (best effort: a failed write is logged, and the next one
   * catches up).
   */
  private void persistCount() {
    long now = System.nanoTime();
    if (relayed.pieces() == 1
        || relayed.pieces() - persistedPieces >= PERSIST_EVERY
        || now - persistedAtNanos >= PERSIST_AFTER_NANOS) {
      persistedAtNanos = now;
      persistedPieces = relayed.pieces();
      try {
        owner.requests().relayed(d.requestId(), relayed.tokens(maxTokens));
      } catch (RuntimeException e) {
        Log.warnf("request %s: recording its relayed count failed: %s", d.requestId(), e);
      }
    }
  }

  /**
   * Bills a request whose node sent its final event: the counted prompt and the relayed completion
   * (plus the end-of-turn token when the node stopped on it), and settles its reservation to the
   * node's release count within what was relayed ({@link ReleaseCount#settled}). The node's own
   * counts are kept beside the bill as a cross-check, and a difference is logged.
   */
  private Finished finish() {
    try {
      return bill();
    } finally {
      metered.letGo(); // only if billing failed before it ended the request
      d.call().close();
    }
  }

  private Finished bill() {
    NodeUsage claimed = NodeUsage.of(last);
    // An answer without text earns the node nothing (ADR 0038): no slot credit, no end-of-turn
    // token billed; the prompt, which the node ran, is. A choice without text earns nothing either.
    boolean empty = relayed.empty();
    RequestOutcome outcome = empty ? RequestOutcome.EMPTY : RequestOutcome.COMPLETED;
    // Billed: each choice's relayed tokens. What the node made, for DP: everything read (a tool
    // call's block whole, not only what was delivered of it), and at least what was billed.
    RelayedChoices.Totals totals = relayed.totals(finishReasons(last, relayed.count()), maxTokens);
    int completion = totals.billed();
    int read = totals.read();
    // Each choice that ran feeds back all its tokens but its last: one fewer fed back per choice
    // beyond the first than ReleaseCount's one sequence implies, and as much run-ahead room.
    int extra = Math.max(0, totals.ran() - 1);
    long releases =
        Math.min(
            d.reservation().releases(),
            ReleaseCount.settled(
                claimed.dpReleases(),
                promptTokens,
                read - extra,
                owner.gateway().nodeRunAheadTokens() + extra,
                d.admission().releasesPerToken()));
    if (claimed.completionTokens() != completion || claimed.promptTokens() != promptTokens) {
      Log.infof(
          "request %s: node %s claimed %d + %d tokens; the marketplace counted %d + %d and bills"
              + " those",
          d.requestId(),
          d.node().name(),
          claimed.promptTokens(),
          claimed.completionTokens(),
          promptTokens,
          completion);
    }
    // The end, the bill, the settlement and the slots in one statement (ADR 0040).
    Settlement.Settled settled =
        metered
            .endInOneCall(
                leases ->
                    owner
                        .settlement()
                        .settle(
                            d.requestId(),
                            context(),
                            outcome,
                            new Settlement.Counts(
                                promptTokens, completion, read, claimed.completionTokens()),
                            OptionalLong.of(releases),
                            leases))
            .orElseThrow(() -> new IllegalStateException("request ended twice"));
    owner.metrics().ended(outcome, completion);
    return new Finished(settled, promptTokens, completion, last);
  }

  /**
   * Ends a request whose stream did not finish, billed for the text its client was sent: the prompt
   * and the relayed tokens when any were relayed; the prompt alone when the client left after the
   * node accepted the request; nothing when the node failed before its first piece. When the client
   * left, the reservation stays open for the node's report or the sweep ({@link RequestSweeper}),
   * which settle it within what was read from the node (which counts, for DP, the pieces the client
   * never got); when the node failed, it is settled at once to the bound of what the node was sent
   * and read ({@link ReleaseCount#bound}), which the node's report can only lower, so a node that
   * fails fast does not hold the client's budget until the report deadline (ADR 0038). Closes the
   * node's stream and gives back the slots.
   */
  public void endEarly(RequestOutcome outcome) {
    try {
      int completion = relayed.tokens(maxTokens);
      int prompt = completion > 0 || outcome == RequestOutcome.CLIENT_GONE ? promptTokens : 0;
      int read = Math.max(completion, java.util.Arrays.stream(relayed.readTokens(maxTokens)).sum());
      OptionalLong bound =
          outcome == RequestOutcome.NODE_FAILED
              ? OptionalLong.of(
                  Math.min(
                      d.reservation().releases(),
                      ReleaseCount.bound(
                          promptTokens,
                          read,
                          owner.gateway().nodeRunAheadTokens(),
                          d.admission().releasesPerToken())))
              : OptionalLong.empty();
      metered.end(
          () ->
              owner
                  .settlement()
                  .settleAtBound(
                      d.requestId(),
                      context(),
                      outcome,
                      new Settlement.Counts(prompt, completion, read, -1),
                      bound));
      owner.metrics().ended(outcome, completion);
    } finally {
      metered.letGo(); // only if billing failed before it ended the request
      d.call().close();
    }
  }

  /**
   * Ends a request whose node failed ({@code e}: its error event, a broken stream, too much text)
   * as {@link #endEarly} does; the node's words go to the log and the request's record for admins
   * ({@code node_error}), never to the client ({@link #nodeFailedMessage}).
   */
  private void nodeFailed(Exception e) {
    String words = io.tensafe.marketplace.problem.Causes.describe(e);
    Log.warnf(
        "request %s: node %s failed mid-generation: %s", d.requestId(), d.node().name(), words);
    try {
      QuarkusTransaction.requiringNew().run(() -> owner.requests().nodeError(d.requestId(), words));
    } catch (RuntimeException recording) {
      Log.warnf("request %s: recording its node's error failed: %s", d.requestId(), recording);
    } finally {
      endEarly(RequestOutcome.NODE_FAILED);
    }
  }

  /**
   * What a client is told when its request's node failed mid-generation, whatever the node said:
   * fixed text, then the request id by which admins find the node's words.
   */
  private String nodeFailedMessage() {
    return "the node serving this request failed mid-generation; request id " + d.requestId();
  }

  private GatewayRequests.Context context() {
    return d.admission().context(key, d.startedAt());
  }

  public String requestId() {
    return d.requestId();
  }

  public ServedVersion version() {
    return d.admission().version();
  }

  /** Why {@code auto} chose the version; null for a named model. */
  public String routeReason() {
    return d.admission().routeReason();
  }

  public Reservation reservation() {
    return d.reservation();
  }

  public NodeTarget node() {
    return d.node();
  }

  public OffsetDateTime startedAt() {
    return d.startedAt();
  }

  /** The prompt's tokens as the marketplace counted them: what the prompt is billed. */
  public int promptTokens() {
    return promptTokens;
  }
}
