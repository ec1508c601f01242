package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.gateway.MeteredRequest;
import io.tensafe.marketplace.gateway.ServedVersion;
import io.tensafe.tgsp.session.FrameOrder;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A private session this marketplace instance relays: who pays, which version on which node, the
 * node's plan it checks frames against, and the frame order it meters from. {@link #lock} admits
 * one frame at a time (back-pressure: a second is refused with 429, never queued); {@link #order},
 * {@link #framesPaid} and {@link #ended} change only under it. Once {@link #ended} is set the
 * session is out of the live map and never relays again.
 */
final class LiveSession {
  final UUID id;
  final ApiKeyPrincipal key;

  /**
   * The session's end, once: it owns the node's slot, the lease on one of the key's request slots
   * and the session's place in the gateway's live set.
   */
  final MeteredRequest metered;

  final ServedVersion version;
  final NodeTarget node;
  final OffsetDateTime startedAt;
  final SessionPlan plan;
  final ReentrantLock lock = new ReentrantLock();
  FrameOrder order;
  boolean ended;

  /** Frames the session may still send before it draws the next request from its key's rate. */
  int framesPaid;

  private volatile long acceptedNanos = System.nanoTime();

  LiveSession(
      UUID id,
      ApiKeyPrincipal key,
      MeteredRequest metered,
      ServedVersion version,
      NodeTarget node,
      OffsetDateTime startedAt,
      SessionPlan plan,
      FrameOrder order) {
    this.id = id;
    this.key = key;
    this.metered = metered;
    this.version = version;
    this.node = node;
    this.startedAt = startedAt;
    this.plan = plan;
    this.order = order;
  }

  /** Records that a frame was accepted now (its answer came back whole and was counted). */
  void accepted() {
    acceptedNanos = System.nanoTime();
  }

  /** Nanoseconds since the session opened or last had a frame accepted. */
  long idleNanos() {
    return System.nanoTime() - acceptedNanos;
  }
}
