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
import java.util.UUID;

/**
 * One dispatched hosted request, from its node's first event to its bill. The caller reads the
 * node's text with {@link #nextDelta}, passes each piece on to its client and then says so with
 * {@link #relayed}; the request ends once, by {@link #finish} or {@link #endEarly}, which bill what
 * was relayed ({@link RelayedText}) and give back the node's and the key's slot. At the first
 * piece, and then after {@value #PERSIST_EVERY} more pieces or {@link #PERSIST_AFTER_NANOS} (a
 * second), whichever comes first, the relayed count is written to the request's record, so that if
 * this marketplace dies mid-stream the request is billed that, at most a second behind ({@link
 * Settlement#settleLost}); while it relays, the replica vouches for it ({@link LiveRelays}). A node
 * sending more than {@code max_tokens} allows fails. Thread-confined to the request's thread.
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
  private final UUID keySlot;
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
      KeySlots slots,
      GatewayMetrics metrics,
      GatewayConfig gateway,
      LiveRelays live) {}

  /**
   * The most UTF-8 bytes a node may send per token of {@code max_tokens}: far above any token of
   * the models served (a byte-level BPE token is a few bytes; the longest are runs of whitespace or
   * punctuation), so only a node padding its answer reaches it.
   */
  static final int MAX_BYTES_PER_TOKEN = 256;

  HostedRelay(
      Services owner,
      ApiKeyPrincipal key,
      UUID keySlot,
      Dispatched<NodeCall> d,
      int promptTokens,
      RelayedText relayed) {
    this.owner = owner;
    this.key = key;
    this.keySlot = keySlot;
    this.d = d;
    this.promptTokens = promptTokens;
    this.relayed = relayed;
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
  public String nextDelta() throws IOException {
    int maxTokens = d.admission().limits().maxCompletionTokens();
    for (JsonNode event = d.call().next(); event != null; event = d.call().next()) {
      if (event.has("delta")) {
        String piece = event.get("delta").asText();
        piecesRead++;
        bytesRead += piece.length() * 3L; // at most 3 UTF-8 bytes per UTF-16 unit
        if (piecesRead > maxTokens || bytesRead > (long) maxTokens * MAX_BYTES_PER_TOKEN) {
          throw new IOException(
              "the node sent more than the request's max_tokens (" + maxTokens + ") allows");
        }
        relayed.read(piece);
        return piece;
      } else if (event.has("usage")) {
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
  public void readToEnd() throws IOException {
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
  public void relayed() {
    relayedExcept(0);
  }

  /**
   * As {@link #relayed}, for a caller that holds back the last {@code heldChars} chars it read (a
   * tool call's text, or what may open one): what it sent is billed, what it holds is not, until a
   * later call says it was sent. Range of {@code heldChars}: 0..the chars read.
   */
  public void relayedExcept(int heldChars) {
    relayed.relayedExcept(heldChars);
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
   * Records that the whole completion read reached the client at once (an answer that is not
   * streamed: its client gets nothing before the end, so nothing is recorded before).
   *
   * @return the completion text
   */
  public String relayedWhole() {
    relayed.relayedAll();
    return relayed.text();
  }

  /** Pieces relayed so far. */
  public int relayedPieces() {
    return relayed.pieces();
  }

  /**
   * Bills a request whose node sent its final event: the counted prompt and the relayed completion
   * (plus the end-of-turn token when the node stopped on it), and settles its reservation to the
   * node's release count within what was relayed ({@link ReleaseCount#settled}). The node's own
   * counts are kept beside the bill as a cross-check, and a difference is logged.
   */
  public Finished finish() {
    NodeUsage claimed = NodeUsage.of(last);
    String finishReason = last.path("finish_reason").asText();
    int completion =
        relayed.completionTokens(finishReason, d.admission().limits().maxCompletionTokens());
    long releases =
        Math.min(
            d.reservation().releases(),
            ReleaseCount.settled(
                claimed.dpReleases(),
                promptTokens,
                completion,
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
    Settlement.Settled settled;
    try {
      // The slots go back with the settlement's commit (one round trip fewer), and on their own
      // if it fails.
      settled =
          QuarkusTransaction.requiringNew()
              .call(
                  () -> {
                    Settlement.Settled s =
                        owner
                            .settlement()
                            .settle(
                                d.requestId(),
                                context(),
                                RequestOutcome.COMPLETED,
                                new Settlement.Counts(
                                    promptTokens,
                                    completion,
                                    completion,
                                    claimed.completionTokens()),
                                OptionalLong.of(releases));
                    owner.slots().giveWithTransaction(leases());
                    return s;
                  });
    } catch (RuntimeException e) {
      owner.slots().giveAll(leases());
      throw e;
    } finally {
      owner.live().remove(d.requestId());
      d.call().close();
    }
    owner.metrics().ended(RequestOutcome.COMPLETED, completion);
    return new Finished(settled, promptTokens, completion, last);
  }

  /**
   * Ends a request whose stream did not finish, billed for the text its client was sent: the prompt
   * and the relayed tokens when any were relayed; the prompt alone when the client left after the
   * node accepted the request; nothing when the node failed before its first piece. The reservation
   * stays open for the node's report or the sweep ({@link UnreportedRequests}), which settle it
   * within what was read from the node (which counts, for DP, the pieces the client never got).
   * Closes the node's stream and gives back the slots.
   */
  public void endEarly(RequestOutcome outcome) {
    try {
      int completion = Math.min(relayed.tokens(), d.admission().limits().maxCompletionTokens());
      int prompt = completion > 0 || outcome == RequestOutcome.CLIENT_GONE ? promptTokens : 0;
      owner
          .settlement()
          .settle(
              d.requestId(),
              context(),
              outcome,
              new Settlement.Counts(
                  prompt, completion, Math.max(completion, relayed.readTokens()), -1),
              OptionalLong.empty());
      owner.metrics().ended(outcome, completion);
    } finally {
      owner.live().remove(d.requestId());
      d.call().close();
      owner.slots().giveAll(leases());
    }
  }

  /**
   * Ends a request whose node failed ({@code e}: its error event, a broken stream, too much text)
   * as {@link #endEarly} does; the node's words go to the log and the request's record for admins
   * ({@code node_error}), never to the client ({@link #nodeFailedMessage}).
   */
  public void nodeFailed(Exception e) {
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
  public String nodeFailedMessage() {
    return "the node serving this request failed mid-generation; request id " + d.requestId();
  }

  private GatewayRequests.Context context() {
    return d.admission().context(key, d.startedAt());
  }

  private List<UUID> leases() {
    return List.of(d.node().slot(), keySlot);
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
