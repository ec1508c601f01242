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

  /** What was read from the node and how much of it was passed on. */
  private final RelayedText relayed;

  private JsonNode last;
  private int piecesRead;
  private long bytesRead;

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
      RelayedText relayed) {
    this.owner = owner;
    this.key = key;
    this.metered = metered;
    this.d = d;
    this.promptTokens = promptTokens;
    this.relayed = relayed;
  }

  /**
   * What a client is sent of a streamed answer, piece by piece; the relay decides from what it says
   * what is billed and how the request ends ({@link #relay}). Thread-confined to the request's
   * thread.
   */
  public interface Sink {
    /**
     * Passes on a piece read from the node.
     *
     * @return what reached the client ({@link Passed})
     * @throws ClientGone when writing to the client failed: the client went away
     */
    Passed send(String piece) throws ClientGone;

    /**
     * Passes on what the sink still holds once the node's final event arrived.
     *
     * @throws ClientGone as {@link #send}
     */
    Passed end() throws ClientGone;
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
      for (String piece = nextDelta(); piece != null; piece = nextDelta()) {
        mark(sink.send(piece));
      }
      mark(sink.end());
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
   * @param delivered what the client receives of the whole text (a tool call's name and arguments),
   *     or null when it receives the text as read
   * @return the text read and the bill
   * @throws NodeFailed the node failed before its end (the request has ended; nothing reached the
   *     client, so nothing is billed)
   */
  public Whole relayWhole(java.util.function.UnaryOperator<String> delivered) throws NodeFailed {
    try {
      readToEnd();
    } catch (IOException | RuntimeException e) {
      nodeFailed(e);
      throw new NodeFailed(nodeFailedMessage() + "; nothing was billed");
    }
    // Reached the client at once, at its end: nothing is recorded before (finish records it).
    String text = relayed.text();
    if (delivered == null) {
      relayed.relayedAll();
    } else {
      relayed.relayedAs(delivered.apply(text));
    }
    return new Whole(text, finish());
  }

  /** A whole answer: the text read from the node and what the request was billed. */
  public record Whole(String text, Finished billed) {}

  private void mark(Passed passed) {
    if (!passed.any()) {
      return;
    }
    if (passed.rewritten() == null) {
      relayed();
    } else {
      relayedAs(passed.rewritten());
    }
  }

  /** What a finished request was billed, and its node's final event (HE and DP statistics). */
  public record Finished(
      Settlement.Settled settled, int promptTokens, int completionTokens, JsonNode finalEvent) {}

  /**
   * The node's next piece of text, or null once its final event arrived ({@link #finalEvent}).
   *
   * @throws IOException when the node reports an error, its stream ends without a final event, or
   *     it sends more than {@code max_tokens} allows: more pieces than tokens (an honest node sends
   *     at most one a token), or more than {@value #MAX_BYTES_PER_TOKEN} bytes a token
   */
  private String nextDelta() throws IOException {
    int maxTokens = d.admission().limits().maxCompletionTokens();
    for (JsonNode event = d.call().next(); event != null; event = d.call().next()) {
      if (event.has("delta")) {
        String piece = event.get("delta").asText();
        if (!piece.isEmpty()) {
          d.call().progressed();
        }
        piecesRead++;
        bytesRead += piece.length() * 3L; // at most 3 UTF-8 bytes per UTF-16 unit
        if (piecesRead > maxTokens || bytesRead > (long) maxTokens * MAX_BYTES_PER_TOKEN) {
          throw new IOException(
              "the node sent more than the request's max_tokens (" + maxTokens + ") allows");
        }
        relayed.read(piece);
        return piece;
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
   * Records that the piece {@link #nextDelta} last returned reached the client. At the first piece,
   * then after {@value #PERSIST_EVERY} more or a second, the relayed count is written to the
   * request's record (best effort: a failed write is logged, and the next one catches up).
   */
  private void relayed() {
    relayed.relayedAll();
    persistCount();
  }

  /**
   * As {@link #relayed}, for a caller that re-writes what it read before passing it on (tool calls:
   * their name and arguments, {@code ToolCallAnswer.delivered}): {@code delivered} reached the
   * client, and the bill counts what was passed here, never the rest of what the node sent.
   */
  private void relayedAs(String delivered) {
    relayed.relayedAs(delivered);
    persistCount();
  }

  private void persistCount() {
    long now = System.nanoTime();
    if (relayed.pieces() == 1
        || relayed.pieces() - persistedPieces >= PERSIST_EVERY
        || now - persistedAtNanos >= PERSIST_AFTER_NANOS) {
      persistedAtNanos = now;
      persistedPieces = relayed.pieces();
      try {
        owner.requests().relayed(d.requestId(), relayed.tokens());
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
    String finishReason = last.path("finish_reason").asText();
    // An answer without text earns the node nothing (ADR 0038): no slot credit, no end-of-turn
    // token billed; the prompt, which the node ran, is.
    boolean empty = relayed.text().isEmpty();
    RequestOutcome outcome = empty ? RequestOutcome.EMPTY : RequestOutcome.COMPLETED;
    int completion =
        empty
            ? 0
            : relayed.completionTokens(finishReason, d.admission().limits().maxCompletionTokens());
    // What the node made, for DP: everything read (a tool call's block whole, not only what was
    // delivered of it), and at least what was billed.
    int read =
        Math.max(
            completion,
            Math.min(relayed.readTokens(), d.admission().limits().maxCompletionTokens()));
    long releases =
        Math.min(
            d.reservation().releases(),
            ReleaseCount.settled(
                claimed.dpReleases(),
                promptTokens,
                read,
                owner.gateway().nodeRunAheadTokens(),
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
      int completion = Math.min(relayed.tokens(), d.admission().limits().maxCompletionTokens());
      int prompt = completion > 0 || outcome == RequestOutcome.CLIENT_GONE ? promptTokens : 0;
      int read = Math.max(completion, relayed.readTokens());
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
