package io.tensafe.marketplace.privatemode;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeRefusal;
import io.tensafe.marketplace.gateway.GatewayRequests;
import io.tensafe.marketplace.gateway.KeySlots;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.session.FrameHeader;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Relays a private session's client frames to its node and the node's answers back (ADR 0017, ADR
 * 0024), in this order, each step refusing before the next:
 *
 * <ol>
 *   <li>before any byte of the body is read: the session must be the key's and live (404), have no
 *       other frame in flight (429), and the key's rate must allow it (429, one request per {@code
 *       tensafe.gateway.frames-per-request} frames); the replica's bytes in flight must admit its
 *       declared length (503, {@link FrameBytesInFlight});
 *   <li>from its {@value FrameHeader#BYTES}-byte header alone: the session's {@link FrameOrder},
 *       exactly the plan's ciphertexts per token × tokens, and a declared length of exactly that
 *       many ciphertexts of the plan's {@code upload_bytes} (400);
 *   <li>while its ciphertexts are streamed to the node: each exactly {@code upload_bytes} long
 *       (400; the node gets a body cut short, which it cannot take for a frame), and the whole body
 *       there before the node's timeout (408; a slow client never counts against its node);
 *   <li>the node's answer, read whole: an answer to this frame with exactly the plan's answers per
 *       token × tokens (else 502: the round fails, uncounted, and the session ends).
 * </ol>
 *
 * <p>Invariant: the session's order, and so its bill, moves only for frames that passed every check
 * and whose answer came back whole; and then its row is marked live ({@code active_at}) in the same
 * statement that records the count. A refused frame leaves the session going on.
 */
@ApplicationScoped
public class PrivateFrames {
  @Inject PrivateSessions sessions;
  @Inject PrivateModeConfig privateMode;
  @Inject KeySlots keySlots;
  @Inject FrameBytesInFlight inFlight;
  @Inject GatewayRequests requests;

  /** Drops clients whose frame body stalls ({@code tensafe.gateway.private-frame-timeout}). */
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("private-frame-deadlines").daemon().unstarted(r));

  @PreDestroy
  void stop() {
    timer.shutdownNow();
  }

  /** A client frame whose header was accepted on a copy of its session's order. */
  private record Checked(byte[] head, FrameHeader header, FrameOrder next) {}

  /**
   * Relays the frame {@code body} of declared length {@code length} for session {@code sessionId}
   * of {@code key}, and returns the node's answer frame.
   *
   * @param dropClient ends the client's request at once (closes its connection): run when its body
   *     has not all arrived within the frame timeout, which unblocks the read waiting on it
   * @throws ApiProblem 404 for a session this key does not have (or that ended), 429 while another
   *     frame of it is in flight or the key's rate is spent, 503 while the replica's frame bytes
   *     are at their bound, 400 for a frame that is malformed, out of order or not of the plan's
   *     shape (the session goes on), 502 when the node failed or answered out of plan (the session
   *     ended, billed for what it served)
   */
  public byte[] relay(
      ApiKeyPrincipal key, String sessionId, long length, InputStream body, Runnable dropClient) {
    LiveSession s = sessions.live(key, sessionId);
    if (!s.lock.tryLock()) {
      throw new ApiProblem(
          ProblemKind.RATE_LIMITED, "a frame of this session is in flight; send one at a time", 1);
    }
    try {
      if (s.ended) {
        throw PrivateSessions.ended(sessionId);
      }
      payRate(s);
      try (FrameBytesInFlight.Held held = inFlight.admit(length)) {
        Checked frame = checkHeader(s, length, body);
        byte[] answer = exchange(s, frame, length, body, held, dropClient);
        if (!requests.served(
            s.id.toString(), frame.next().promptTokens(), frame.next().completionTokens())) {
          sessions.drop(s);
          throw PrivateSessions.ended(sessionId);
        }
        s.order = frame.next();
        s.accepted();
        return answer;
      }
    } finally {
      s.lock.unlock();
    }
  }

  /**
   * Draws one request from the key's rate at the session's first frame and every {@code
   * frames-per-request} frames after it.
   */
  private void payRate(LiveSession s) {
    if (s.framesPaid == 0) {
      keySlots.drawRequest(
          s.key,
          ", and a private session's frames cost one request per "
              + privateMode.framesPerRequest()
              + " frames");
      s.framesPaid = privateMode.framesPerRequest();
    }
    s.framesPaid--;
  }

  /** Reads the frame's header and checks it against the session's order and plan. */
  private Checked checkHeader(LiveSession s, long length, InputStream body) {
    FrameLimits frameLimits = sessions.frameLimits();
    try {
      if (length < FrameHeader.BYTES) {
        throw new MalformedFrameException(
            "a frame of "
                + length
                + " bytes is shorter than its "
                + FrameHeader.BYTES
                + "-byte header");
      }
      byte[] head;
      try {
        head = body.readNBytes(FrameHeader.BYTES);
      } catch (IOException e) {
        throw new MalformedFrameException("the body failed inside the frame's header: " + e);
      }
      FrameHeader header = FrameHeader.read(head, frameLimits);
      FrameOrder next = s.order.copy();
      next.accept(header);
      s.plan.requireClientFrame(header);
      long planned = s.plan.frameBytes(header);
      if (planned != length) {
        throw new MalformedFrameException(
            "a frame of this header has exactly "
                + planned
                + " bytes ("
                + header.count()
                + " ciphertexts of "
                + s.plan.uploadBytes(header.group())
                + " bytes, each after its 4-byte length), not "
                + length);
      }
      return new Checked(head, header, next);
    } catch (MalformedFrameException e) {
      throw ProblemTypes.validation("frame refused: " + e.getMessage());
    }
  }

  /** Streams the frame to the node and checks its answer. */
  private byte[] exchange(
      LiveSession s,
      Checked frame,
      long length,
      InputStream body,
      FrameBytesInFlight.Held held,
      Runnable dropClient) {
    FrameHeader h = frame.header();
    RelayedFrameBody relayed =
        new RelayedFrameBody(frame.head(), h.count(), body, s.plan.uploadBytes(h.group()));
    FrameLimits frameLimits = sessions.frameLimits();
    byte[] answer;
    ScheduledFuture<?> deadline =
        timer.schedule(
            () -> {
              if (!relayed.complete()) {
                Log.infof(
                    "private session %s: frame %d's body stalled; dropping its client",
                    s.id, h.sequence());
                dropClient.run();
              }
            },
            privateMode.privateFrameTimeout().toMillis(),
            TimeUnit.MILLISECONDS);
    try {
      answer = sessions.link().frame(s.node, s.id, relayed, length, frameLimits.maxFrameBytes());
    } catch (IOException e) {
      // A body that never reached the node whole is the client's doing, never the node's: a bad
      // ciphertext, a client gone, or one too slow for the frame timeout (whichever of the
      // deadline and the HTTP client's own timeout fires first).
      // The node's clock starts when the body has arrived: a body trickled in just before the
      // deadline leaves the node its whole frame timeout (the exchange may take twice it), so a
      // timeout is the node's only once it had that long (ADR 0038).
      long nodeNanos = relayed.nanosSinceComplete();
      boolean stalled =
          e instanceof HttpTimeoutException
              && (nodeNanos < 0 || nodeNanos < privateMode.privateFrameTimeout().toNanos());
      if (stalled) {
        dropClient.run();
      }
      if (relayed.clientFault() != null || stalled) {
        throw ProblemTypes.validation(
            "frame refused: "
                + (relayed.clientFault() != null
                    ? relayed.clientFault()
                    : relayed.complete()
                        ? "its body arrived too slowly to leave the node the frame timeout ("
                            + privateMode.privateFrameTimeout()
                            + ") to answer"
                        : "its body did not all arrive within " + privateMode.privateFrameTimeout())
                + "; the session goes on");
      }
      if (e instanceof NodeRefusal r && r.status() == 400) {
        Log.infof("private session %s: node refused frame %d: %s", s.id, h.sequence(), e);
        throw ProblemTypes.validation(
            "the node refused frame "
                + h.sequence()
                + " (a ciphertext that does not decode under the session's parameters); the"
                + " session goes on");
      }
      throw sessions.nodeFailed(s, e);
    } finally {
      deadline.cancel(false);
    }
    held.add(answer.length);
    try {
      SessionFrame read = SessionFrame.read(answer, frameLimits);
      if (read.kind() != FrameKind.ANSWER || read.sequence() != h.sequence()) {
        throw new MalformedFrameException(
            "the node's answer does not answer frame " + h.sequence());
      }
      s.plan.requireAnswer(h, read.ciphertexts().size());
    } catch (MalformedFrameException e) {
      throw sessions.nodeFailed(s, e);
    }
    return answer;
  }
}
