package io.tensafe.marketplace.gateway;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.limits.KeyRateLevel;
import io.tensafe.marketplace.limits.Limits;
import io.tensafe.marketplace.limits.LimitsConfig;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * An API key's request slots, hosted requests and private sessions alike: its rate per minute and
 * its requests in flight, counted for every replica together unless {@code tensafe.limits.scope}
 * says otherwise. Counted in the database, a request's slot is taken by the admission's one call
 * ({@link #inTheAdmission}); counted in memory, by {@link #take}. Every slot taken is given back
 * once, by whoever ends the request. Before either, {@link #enter} refuses a key this replica
 * already knows to be over its limits, so that such a key costs no work.
 */
@ApplicationScoped
public class KeySlots {
  @Inject GatewayConfig gateway;
  @Inject Limits limits;

  /**
   * Per key, this replica's requests between {@link #enter} and their admission, plus the slots it
   * holds for the key: never more than the database counts for it, so a key this count already
   * holds full is refused before any work is done for it.
   */
  private final ConcurrentHashMap<UUID, Integer> local = new ConcurrentHashMap<>();

  /** The key of each slot this replica holds, to count it down when it is given back. */
  private final ConcurrentHashMap<UUID, UUID> heldFor = new ConcurrentHashMap<>();

  /**
   * Per key, until when ({@code System.nanoTime()}) its bucket was last found empty: the database's
   * own wait, rounded up to whole seconds as its Retry-After says; and the level found then.
   */
  private final ConcurrentHashMap<UUID, Empty> emptyUntil = new ConcurrentHashMap<>();

  /**
   * A key's bucket found empty at {@code readAtNanos} holding {@code level} (null when not read),
   * refused until {@code untilNanos}.
   */
  private record Empty(long untilNanos, long readAtNanos, KeyRateLevel level) {
    /**
     * The bucket at {@code nanos}: nothing draws from a bucket holding under one request (a refused
     * request draws nothing), so until it refills to one this is exactly what the limiter holds.
     */
    KeyRateLevel levelAt(long nanos) {
      return level.refilledAfter(java.time.Duration.ofNanos(Math.max(0, nanos - readAtNanos)));
    }
  }

  /**
   * Per key, until when ({@code System.nanoTime()}) the database last found every one of its slots
   * held (by any replica): one second, its Retry-After, or until this replica gives one of them
   * back.
   */
  private final ConcurrentHashMap<UUID, Long> fullUntil = new ConcurrentHashMap<>();

  /**
   * Enters a request of {@code key} before any work is done for it (counting its prompt, routing
   * it): a key this replica already knows to be over its rate, or holding every one of its slots
   * here, is refused at once, as the admission's call would refuse it, without that work. Close the
   * answer when the request is admitted or refused.
   *
   * @param levelSeen told the key's bucket before a refusal (null: not wanted): for a key over its
   *     rate the level found when it was refused, refilled to now; for a key holding every slot,
   *     one read of the bucket
   * @throws ApiProblem 429 with Retry-After
   */
  public Entered enter(ApiKeyPrincipal key, Consumer<KeyRateLevel> levelSeen) {
    UUID id = key.keyId();
    Empty empty = emptyUntil.get(id);
    if (empty != null) {
      long now = System.nanoTime();
      long left = empty.untilNanos() - now;
      if (left > 0) {
        if (levelSeen != null && empty.level() != null) {
          levelSeen.accept(empty.levelAt(now));
        }
        throw refusal(true, (int) Math.ceil(left / 1e9));
      }
      emptyUntil.remove(id, empty);
    }
    Long full = fullUntil.get(id);
    if (full != null) {
      if (full - System.nanoTime() > 0) {
        throw refusalForSlots(id, levelSeen);
      }
      fullUntil.remove(id, full);
    }
    int n = local.merge(id, 1, Integer::sum);
    if (n > gateway.maxConcurrencyPerKey()) {
      countDown(id);
      throw refusalForSlots(id, levelSeen);
    }
    return new Entered(id);
  }

  /**
   * The 429 of a key holding every one of its slots, refused before the admission's call; its
   * bucket read for {@code levelSeen} when wanted (a read that fails leaves it untold: the refusal
   * stands without it).
   */
  private ApiProblem refusalForSlots(UUID key, Consumer<KeyRateLevel> levelSeen) {
    if (levelSeen != null) {
      try {
        levelSeen.accept(limits.keyRateLevel(key));
      } catch (RuntimeException e) {
        Log.debugf("reading key %s's bucket for its refusal failed: %s", key, e.toString());
      }
    }
    return refusal(false, 1);
  }

  /** A request entered by {@link #enter}; closing it counts it out. */
  public final class Entered implements AutoCloseable {
    private final UUID key;
    private boolean closed;

    private Entered(UUID key) {
      this.key = key;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        countDown(key);
      }
    }
  }

  private void countDown(UUID key) {
    local.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
  }

  /**
   * Counts {@code lease}, now held by an admitted request of {@code key}, until it is given back.
   */
  void held(UUID key, UUID lease) {
    local.merge(key, 1, Integer::sum);
    heldFor.put(lease, key);
  }

  /** Notes that every one of {@code key}'s slots is held, for the second its Retry-After says. */
  void full(UUID key) {
    fullUntil.put(key, System.nanoTime() + 1_000_000_000L);
  }

  /**
   * Notes that {@code key}'s bucket is empty for {@code seconds}, holding {@code level} now (null
   * when not read).
   */
  void rateLimited(UUID key, int seconds, KeyRateLevel level) {
    long now = System.nanoTime();
    emptyUntil.put(key, new Empty(now + seconds * 1_000_000_000L, now, level));
  }

  private void givenBack(java.util.Collection<UUID> leases) {
    for (UUID lease : leases) {
      UUID key = heldFor.remove(lease);
      if (key != null) {
        countDown(key);
        fullUntil.remove(key);
      }
    }
  }

  /**
   * What the admission's database call needs to take the key's rate and slot itself, when they are
   * counted in the database: a new lease id, the rate per minute and the slots per key, and whether
   * the call draws the rate ({@code drawRate} false: an earlier call for this request drew it and
   * committed, and this one retries while the request waits for a node slot).
   */
  public record InTheAdmission(UUID lease, int perMinute, int maxInFlight, boolean drawRate) {
    /** The same, for a retry whose rate an earlier call drew. */
    InTheAdmission rateDrawn() {
      return new InTheAdmission(lease, perMinute, maxInFlight, false);
    }
  }

  /** The key's slot for the admission's call to take, or null when {@link #take} takes it. */
  InTheAdmission inTheAdmission() {
    return limits.scope() == LimitsConfig.Scope.SHARED
        ? new InTheAdmission(
            UUID.randomUUID(), limits.requestsPerMinute(), gateway.maxConcurrencyPerKey(), true)
        : null;
  }

  /**
   * Takes one of {@code key}'s slots.
   *
   * @param levelSeen told the key's bucket right after this request drew from it (null: not wanted)
   * @return the slot's lease, for {@link #give}
   * @throws ApiProblem 429 with Retry-After when the key has started {@code
   *     tensafe.gateway.requests-per-minute-per-key} requests in the last minute, or already has
   *     {@code tensafe.gateway.max-concurrency-per-key} in flight
   */
  public UUID take(ApiKeyPrincipal key, Consumer<KeyRateLevel> levelSeen) {
    var admission = limits.admitKey(key.keyId(), gateway.maxConcurrencyPerKey());
    if (levelSeen != null) {
      levelSeen.accept(admission.level());
    }
    if (admission.lease() != null) {
      return admission.lease();
    }
    if (admission.rateLimited()) {
      rateLimited(key.keyId(), admission.retryAfterSeconds(), admission.level());
    } else {
      full(key.keyId());
    }
    throw refusal(admission.rateLimited(), admission.retryAfterSeconds());
  }

  /**
   * Spends one request of {@code key}'s rate for a request refused before its admission (a refused
   * request counts against the rate, as it did when the rate was taken first).
   *
   * @param levelSeen as {@link #take}'s
   * @throws ApiProblem 429 as {@link #take}, which then answers instead of the refusal
   */
  void spendRefused(ApiKeyPrincipal key, Consumer<KeyRateLevel> levelSeen) {
    give(take(key, levelSeen));
  }

  /**
   * Draws one request from {@code key}'s requests per minute, and its organisation's, without
   * taking a slot: what a private session's frames pay with, from the buckets every request of the
   * key draws from.
   *
   * @param why what the 429 adds after the key's rate, e.g. how frames are counted
   * @throws ApiProblem 429 with Retry-After when the bucket is empty
   */
  public void drawRequest(ApiKeyPrincipal key, String why) {
    int wait = limits.takeKeyRequest(key.keyId());
    if (wait > 0) {
      throw new ApiProblem(
          ProblemKind.RATE_LIMITED,
          "this API key may start " + limits.requestsPerMinute() + " requests per minute" + why,
          wait);
    }
    // And from its organisation's, as every request of its keys does (ADR 0038).
    wait = limits.takeOrganisationRequest(key.organisationId());
    if (wait > 0) {
      throw new ApiProblem(
          ProblemKind.RATE_LIMITED,
          "this API key's organisation has started its requests per minute, all its keys"
              + " together"
              + why,
          wait);
    }
  }

  /** The 429 a key over its rate ({@code rateLimited}) or its slots gets. */
  ApiProblem refusal(boolean rateLimited, int retryAfterSeconds) {
    return new ApiProblem(
        ProblemKind.RATE_LIMITED,
        rateLimited
            ? "this API key may start " + limits.requestsPerMinute() + " requests per minute"
            : "this API key already has " + gateway.maxConcurrencyPerKey() + " requests in flight",
        Math.max(1, retryAfterSeconds));
  }

  /** Gives back a slot {@link #take} or the admission took. */
  public void give(UUID lease) {
    limits.slots().give(lease);
    givenBack(java.util.List.of(lease));
  }

  /** Gives back leases (a node's and a key's slot) with the current transaction's commit. */
  void giveWithTransaction(java.util.List<UUID> leases) {
    limits.slots().giveAllWithTransaction(leases);
    givenBack(leases);
  }

  /**
   * Of {@code leases}, those a statement gives back itself by deleting their rows ({@code
   * end_request}): all of them when slots are counted in the database, none when in memory.
   */
  java.util.List<UUID> givenByStatement(java.util.List<UUID> leases) {
    return limits.scope() == LimitsConfig.Scope.SHARED ? leases : java.util.List.of();
  }

  /**
   * After a committed statement gave back {@code byStatement} ({@link #givenByStatement}): gives
   * back the rest of {@code leases} (counted in memory) and counts them all down here.
   */
  void givenBackAfter(java.util.List<UUID> leases, java.util.List<UUID> byStatement) {
    if (byStatement.size() < leases.size()) {
      limits.slots().giveAll(leases.stream().filter(l -> !byStatement.contains(l)).toList());
    }
    givenBack(leases);
  }

  /** Gives back leases now. */
  void giveAll(java.util.List<UUID> leases) {
    limits.slots().giveAll(leases);
    givenBack(leases);
  }

  /**
   * Leases whose giving back failed (the database was unreachable), given back at each sweep
   * ({@link #giveBackPending}): this replica renews every lease it holds, so a lease it failed to
   * give back would otherwise hold its slot for as long as the replica lives.
   */
  private final java.util.Queue<java.util.List<UUID>> pending =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  /**
   * Gives back leases now, or, when that fails, at the next sweeps until it succeeds.
   *
   * @return the failure, or null when they were given back
   */
  RuntimeException giveAllOrLater(java.util.List<UUID> leases) {
    try {
      giveAll(leases);
      return null;
    } catch (RuntimeException e) {
      pending.add(leases);
      return e;
    }
  }

  /** Gives back the leases an earlier give failed on; those that fail again wait for the next. */
  void giveBackPending() {
    for (int n = pending.size(); n > 0; n--) {
      java.util.List<UUID> leases = pending.poll();
      if (leases == null) {
        return;
      }
      giveAllOrLater(leases);
    }
  }
}
