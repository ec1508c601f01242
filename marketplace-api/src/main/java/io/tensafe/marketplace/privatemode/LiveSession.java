package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.openai.ServedVersion;
import io.tensafe.tgsp.session.FrameOrder;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A private session this marketplace instance relays: who pays, which version on which node, and
 * the frame order it meters from. {@link #lock} admits one frame at a time (back-pressure: a second
 * is refused with 429, never queued); {@link #order} and {@link #ended} change only under it.
 */
final class LiveSession {
  final UUID id;
  final ApiKeyPrincipal key;

  /** The lease on one of the key's request slots, given back when the session ends. */
  final UUID keySlot;

  final ServedVersion version;
  final NodeTarget node;
  final OffsetDateTime startedAt;
  final ReentrantLock lock = new ReentrantLock();
  FrameOrder order;
  boolean ended;
  private volatile long lastUsedNanos = System.nanoTime();

  LiveSession(
      UUID id,
      ApiKeyPrincipal key,
      UUID keySlot,
      ServedVersion version,
      NodeTarget node,
      OffsetDateTime startedAt,
      FrameOrder order) {
    this.id = id;
    this.key = key;
    this.keySlot = keySlot;
    this.version = version;
    this.node = node;
    this.startedAt = startedAt;
    this.order = order;
  }

  void touch() {
    lastUsedNanos = System.nanoTime();
  }

  long idleNanos() {
    return System.nanoTime() - lastUsedNanos;
  }
}
