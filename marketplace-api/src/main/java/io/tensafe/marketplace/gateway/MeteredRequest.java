package io.tensafe.marketplace.gateway;

import io.quarkus.narayana.jta.QuarkusTransaction;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one handle on a dispatched request's end, hosted or private ({@link Dispatch#meter}, ADR
 * 0039): it owns the request's node and key leases and its place in the live set ({@link
 * LiveRequests}), and ends the request exactly once. {@link #end} runs the bill (a call of {@link
 * Settlement}, the only place a request is billed) in a new transaction whose commit also gives the
 * leases back; when that fails, the leases are given back on their own (or, if the database is
 * unreachable, at the next sweeps: {@link KeySlots#giveBackPending}). {@link #letGo} ends it here
 * without a bill (another replica ended and billed it). The hosted relay and the private sessions
 * hold one each and never give back a lease themselves.
 *
 * <p>Thread-safe: the request's thread and the sweep may both try to end it; the first ends it, the
 * other is told it had ended and does nothing.
 */
public final class MeteredRequest {
  private final String requestId;
  private final List<UUID> leases;
  private final KeySlots slots;
  private final LiveRequests live;
  private final AtomicBoolean ended = new AtomicBoolean();

  MeteredRequest(String requestId, UUID nodeSlot, UUID keySlot, KeySlots slots, LiveRequests live) {
    this.requestId = requestId;
    this.leases = keySlot == null ? List.of(nodeSlot) : List.of(nodeSlot, keySlot);
    this.slots = slots;
    this.live = live;
  }

  public String requestId() {
    return requestId;
  }

  /** Serves the request here from now on, as {@code liveness} says, until it ends. */
  public void live(LiveRequests.Live liveness) {
    live.add(requestId, liveness);
  }

  /** Whether the request has ended here (billed, or let go). */
  public boolean ended() {
    return ended.get();
  }

  /**
   * Ends the request: runs {@code bill} in a new transaction that also gives back its leases, and
   * takes it out of the live set.
   *
   * @return what {@code bill} returned; empty when the request had ended already (nothing was run)
   * @throws RuntimeException what {@code bill} threw (the leases are given back all the same)
   */
  public <R> Optional<R> end(Supplier<R> bill) {
    if (!ended.compareAndSet(false, true)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          QuarkusTransaction.requiringNew()
              .call(
                  () -> {
                    R r = bill.get();
                    slots.giveWithTransaction(leases);
                    return r;
                  }));
    } catch (RuntimeException e) {
      throw givenBackAfterFailure(e);
    } finally {
      live.remove(requestId);
    }
  }

  /**
   * Ends the request as {@link #end} does, in one statement and one round trip (ADR 0040): {@code
   * bill} runs outside any transaction and is given the leases its own statement gives back ({@link
   * Settlement#settle(String, GatewayRequests.Context, RequestOutcome, Settlement.Counts,
   * java.util.OptionalLong, List)}: those counted in the database); the rest are given back after
   * it. When {@code bill} fails, every lease is given back on its own, or at the next sweeps.
   *
   * @return what {@code bill} returned; empty when the request had ended already (nothing was run)
   */
  public <R> Optional<R> endInOneCall(Function<List<UUID>, R> bill) {
    if (!ended.compareAndSet(false, true)) {
      return Optional.empty();
    }
    List<UUID> byStatement = slots.givenByStatement(leases);
    try {
      R r = QuarkusTransaction.suspendingExisting().call(() -> bill.apply(byStatement));
      slots.givenBackAfter(leases, byStatement);
      return Optional.of(r);
    } catch (RuntimeException e) {
      throw givenBackAfterFailure(e);
    } finally {
      live.remove(requestId);
    }
  }

  /** Gives every lease back on its own (or at the next sweeps) after {@code e}; returns it. */
  private RuntimeException givenBackAfterFailure(RuntimeException e) {
    RuntimeException giving = slots.giveAllOrLater(leases);
    if (giving != null) {
      e.addSuppressed(giving);
    }
    return e;
  }

  /**
   * Ends the request here without billing it: gives back its leases and takes it out of the live
   * set. For a request another replica ended and billed, or one whose bill failed before it ended:
   * no longer vouched for, that one is ended by the sweep as lost, billed what was recorded.
   *
   * @return false when it had ended already (nothing done)
   */
  public boolean letGo() {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    try {
      RuntimeException giving = slots.giveAllOrLater(leases);
      if (giving != null) {
        io.quarkus.logging.Log.warnf(
            "request %s: giving back its slots failed, the sweep retries: %s", requestId, giving);
      }
    } finally {
      live.remove(requestId);
    }
    return true;
  }
}
