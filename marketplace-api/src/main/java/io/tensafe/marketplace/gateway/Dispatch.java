package io.tensafe.marketplace.gateway;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.fleet.NodeRefusal;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.limits.KeyRateLevel;
import io.tensafe.marketplace.privacy.Reservation;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.Causes;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Admission, dispatch and fail-over, for hosted requests and private sessions alike (ADR 0026).
 *
 * <p>In one autocommit database call: the caller's routing ({@code admission}) checked again, node
 * choice, the request's record and its DP reservation ({@link RequestAdmission}); then the first
 * node is sent the request ({@link NodeAttempt#start}), and the nodes are tried in turn until one
 * answers (a request admitted that no node can be sent ends unserved at once, ADR 0042):
 *
 * <ul>
 *   <li>a node that could not be reached (connection refused, unresolvable, connect timeout) never
 *       received the request: failed over, and the only case that costs the client no budget;
 *   <li>a node that received a request carrying the client's inputs ({@link
 *       Admission#inputsAtOpen}) and then failed or refused may have run its prompt: its releases
 *       are settled to their bound ({@code ReleaseCount.bound} with nothing relayed) before the
 *       next node is tried, as a reservation of its own ({@code <request id>/attempt-<n>}); when
 *       the budget cannot cover that, the request ends there, its own reservation settled to that
 *       bound;
 *   <li>a node that does not answer within the first-byte timeout may be running the request: the
 *       request ends with 504, nothing billed, its reservation kept for that node's report or the
 *       sweep ({@link RequestSweeper});
 *   <li>a refusal of the adapter, or one the protocol says is the client's fault, ends the request
 *       unserved (422, or the protocol's problem).
 * </ul>
 *
 * Every node slot taken is given back on every path but the answered one, whose slot the caller
 * gives back when the request ends; node names and answers go to the log, never to the client.
 */
@ApplicationScoped
public class Dispatch {
  @Inject NodeDispatcher dispatcher;
  @Inject RequestAdmission admission;
  @Inject GatewayRequests requests;
  @Inject Settlement settlement;
  @Inject GatewayConfig gateway;
  @Inject KeySlots keySlots;
  @Inject LiveRequests live;
  @Inject ServedCatalogue catalogue;
  @Inject io.tensafe.marketplace.apikey.RememberedKeys remembered;

  /**
   * Admits and dispatches a request of {@code key}.
   *
   * @param route resolves the request's version and limits from a snapshot of the served catalogue
   *     (before any database call: a refusal from an out-of-date copy is given only after the copy
   *     is read again)
   * @param levelSeen told the key's requests-per-minute bucket each time this request draws from it
   *     (the last is what the request left; told only once what it reports has committed), also
   *     before a refusal; null when not wanted (the bucket is then not read)
   * @throws ApiProblem as the routing, the key's limits (429), the budget (429) and the nodes
   *     decide: 429 with Retry-After when no node had a free slot within the slot wait (the request
   *     waits for one meanwhile, ADR 0038), 503 when none answered, 504 when the node timed out,
   *     422 when it refused the adapter; 401 when the key is no longer usable
   */
  public <T> Dispatched<T> dispatch(
      ApiKeyPrincipal key,
      Function<ServedCatalogue.Snapshot, Admission> route,
      NodeAttempt<T> attempt,
      Consumer<KeyRateLevel> levelSeen) {
    // The copy first: reading it (once per process, or after a change) is not the request's time.
    ServedCatalogue.Copy copy = catalogue.copy();
    OffsetDateTime started = OffsetDateTime.now(ZoneOffset.UTC);
    Routed routed =
        routed(
            key, route, new ServedCatalogue.Snapshot(copy, started.toInstant()), true, levelSeen);
    KeySlots.InTheAdmission keyInCall = keySlots.inTheAdmission();
    UUID keySlot = keyInCall == null ? keySlots.take(key, levelSeen) : keyInCall.lease();
    long waitUntil = System.nanoTime() + gateway.slotWait().toNanos();
    long backoffMillis = FIRST_BACKOFF_MILLIS;
    boolean waiting = false;
    try {
      for (int routings = 1; ; ) {
        // The step-gate chose among the whole catalogue: its first admission also checks that no
        // version was published, changed or suspended since the copy was read.
        Long wholeCatalogue =
            routings == 1 && routed.admission().routeReason() != null
                ? routed.from().copy().revision()
                : null;
        Optional<Dispatched<T>> d;
        try {
          d =
              admitted(
                  key,
                  routed.admission(),
                  started,
                  wholeCatalogue,
                  keyInCall,
                  keySlot,
                  attempt,
                  levelSeen);
        } catch (NoSlot full) {
          if (keyInCall != null && full.rateKept) {
            keyInCall = keyInCall.rateDrawn(); // committed: a retry does not draw it again
          }
          // A bounded number of requests wait on this replica: beyond it, refused at once.
          waiting = waiting || waiters.tryAcquire();
          long left = waiting ? waitUntil - System.nanoTime() : 0;
          if (left <= 0) {
            if (keyInCall != null && keyInCall.drawRate()) {
              // No call kept this request's draw from the key's rate: a refusal still counts.
              keySlots.spendRefused(key, levelSeen);
            }
            throw slotsBusy(routed.admission().version());
          }
          // Waits for a slot as an engine's queue would, polling the admission with a growing,
          // jittered pause; the key's own slot (in memory) is held meanwhile.
          sleep(Math.min(left / 1_000_000L + 1, jitter(backoffMillis)));
          backoffMillis = Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
          continue; // the same routing again: the version did not change
        }
        if (d.isPresent()) {
          keySlots.held(key.keyId(), keySlot);
          return d.get();
        }
        // The version changed since the copy was read: route again from a fresh one.
        if (routings == MAX_ROUTINGS) {
          throw noNodeAnswered(
              "the adapter's versions kept changing while this request was admitted");
        }
        routings++;
        ServedCatalogue.Copy fresh =
            catalogue.reloadAfter(routed.from().copy().revision(), wholeCatalogue != null);
        // With limits in memory the key's rate was spent when its slot was taken above.
        routed =
            routed(
                key,
                route,
                new ServedCatalogue.Snapshot(fresh, started.toInstant()),
                keyInCall != null && keyInCall.drawRate(),
                levelSeen);
      }
    } catch (RuntimeException e) {
      keySlots.give(keySlot); // given back once; giving back a lease again does nothing
      throw e;
    } finally {
      if (waiting) {
        waiters.release();
      }
    }
  }

  /** Requests waiting for a node slot on this replica; at most {@code max-waiting}. */
  private java.util.concurrent.Semaphore waiters;

  @jakarta.annotation.PostConstruct
  void bound() {
    waiters = new java.util.concurrent.Semaphore(gateway.maxWaiting());
  }

  /** How many times one request is routed when its version keeps changing meanwhile. */
  private static final int MAX_ROUTINGS = 3;

  /** The first pause before a request waiting for a node slot tries its admission again. */
  private static final long FIRST_BACKOFF_MILLIS = 20;

  /** The longest pause between two tries of a request waiting for a node slot. */
  private static final long MAX_BACKOFF_MILLIS = 500;

  /**
   * No node had a free slot for this admission (nothing was recorded or reserved): the request may
   * wait and try again. {@code rateKept}: the call drew the key's rate and committed it (limits in
   * the database, a {@code no_capacity} answer), so a retry must not draw it again.
   */
  private static final class NoSlot extends RuntimeException {
    final boolean rateKept;

    NoSlot(boolean rateKept) {
      super("no node slot", null, false, false);
      this.rateKept = rateKept;
    }
  }

  private static long jitter(long millis) {
    return millis / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(millis / 2 + 1);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiProblem(ProblemKind.HTTP, 503, "No capacity", "interrupted while waiting", 1);
    }
  }

  /** A request routed, and the snapshot it was routed from. */
  private record Routed(Admission admission, ServedCatalogue.Snapshot from) {}

  /**
   * The request routed from {@code at}; a refusal only from a current copy (read again once if it
   * changed), after it spent one request of the key's rate when {@code spendOnRefusal} (a 429
   * answers instead when the rate is spent).
   */
  private Routed routed(
      ApiKeyPrincipal key,
      Function<ServedCatalogue.Snapshot, Admission> route,
      ServedCatalogue.Snapshot at,
      boolean spendOnRefusal,
      Consumer<KeyRateLevel> levelSeen) {
    try {
      return new Routed(route.apply(at), at);
    } catch (ApiProblem refused) {
      ServedCatalogue.Copy now = catalogue.current();
      if (now.revision() != at.copy().revision()) {
        ServedCatalogue.Snapshot fresh = new ServedCatalogue.Snapshot(now, at.at());
        try {
          return new Routed(route.apply(fresh), fresh);
        } catch (ApiProblem stillRefused) {
          spendRefused(key, spendOnRefusal, levelSeen);
          throw stillRefused;
        }
      }
      spendRefused(key, spendOnRefusal, levelSeen);
      throw refused;
    }
  }

  private void spendRefused(ApiKeyPrincipal key, boolean spend, Consumer<KeyRateLevel> levelSeen) {
    if (spend) {
      keySlots.spendRefused(key, levelSeen);
    }
  }

  /**
   * Admits {@code a} and dispatches it; empty when its version is no longer served as it was
   * routed, or the catalogue is no longer at revision {@code wholeCatalogue} when that is given
   * (nothing taken, written or reserved). On a refusal or failure the key's slot is given back.
   *
   * <p>The admission is one autocommit call, committed before any node is sent the request, unless
   * the protocol takes more at admission ({@link NodeAttempt#takesMoreAtAdmission}, private mode's
   * token quota): then the call and that share one transaction, which a refusal of either rolls
   * back whole (ADR 0042). A request admitted that no node can then be sent is ended unserved
   * ({@link #unadmit}), so nothing stays reserved or held.
   */
  private <T> Optional<Dispatched<T>> admitted(
      ApiKeyPrincipal key,
      Admission a,
      OffsetDateTime started,
      Long wholeCatalogue,
      KeySlots.InTheAdmission keyInCall,
      UUID keySlot,
      NodeAttempt<T> attempt,
      Consumer<KeyRateLevel> levelSeen) {
    List<NodeTarget> claimed = new ArrayList<>();
    String requestId = UUID.randomUUID().toString();
    ServedVersion v = a.version();
    boolean inTransaction = attempt.takesMoreAtAdmission();
    RequestAdmission.Answer answer;
    try {
      java.util.concurrent.Callable<RequestAdmission.Answer> admit =
          () -> {
            // Slots counted in the database: the admission's one call chooses the nodes too;
            // counted in memory: chosen here first.
            NodeDispatcher.NodeChoice choice =
                dispatcher.inTheAdmission(v.fleetId(), v.baseModel()).orElse(null);
            if (choice == null) {
              NodeDispatcher.Candidates found =
                  dispatcher.candidates(v.fleetId(), v.baseModel(), v.adapterId(), v.version());
              claimed.addAll(found.targets());
              if (claimed.isEmpty()) {
                if (!found.anyDispatchable()) {
                  throw CapacityRefusals.noNodeServing(v);
                }
                return RequestAdmission.Answer.NO_CAPACITY;
              }
            }
            RequestAdmission.Answer admitted =
                admission.admit(
                    requestId,
                    a.context(key, started),
                    v,
                    wholeCatalogue,
                    keyInCall,
                    choice,
                    claimed,
                    a.releases(),
                    a.mode());
            if (inTransaction && admitted.reservation() != null) {
              try {
                attempt.admitted(a, key, requestId);
              } catch (ApiProblem refused) {
                throw new RefusedAfterAdmission(refused);
              }
            }
            return admitted;
          };
      answer = inTransaction ? QuarkusTransaction.requiringNew().call(admit) : admit.call();
    } catch (RefusedAfterAdmission e) {
      // Rolled back whole, the rate the call drew included: draw it again.
      giveBack(claimed, keySlot);
      if (keyInCall != null && keyInCall.drawRate()) {
        keySlots.spendRefused(key, levelSeen);
      }
      throw e.problem;
    } catch (RequestAdmission.NoUsableNode e) {
      // Admitted with no node this replica may call: undone (ended when the call committed on its
      // own, else rolled back) and refused at once, since the same nodes would be chosen again.
      if (inTransaction) {
        giveBack(claimed, keySlot);
        if (keyInCall != null && keyInCall.drawRate()) {
          keySlots.spendRefused(key, levelSeen); // rolled back: a refusal still spends it
        }
      } else {
        unadmit(requestId, claimed, List.of(), keySlot);
        if (levelSeen != null && e.keyLevel != null) {
          levelSeen.accept(e.keyLevel); // committed
        }
      }
      throw CapacityRefusals.noUsableNode(v);
    } catch (RequestAdmission.AdmittedNotSent e) {
      if (inTransaction) {
        giveBack(claimed, keySlot); // the rest rolled back
      } else {
        unadmit(requestId, claimed, e.nodeSlots, keySlot);
      }
      throw e.failure();
    } catch (ApiProblem e) {
      // Refused before the call (no node serves the version, or the request's own figures).
      giveBack(claimed, keySlot);
      throw e;
    } catch (Exception e) {
      // The call failed: nothing it did was committed (a statement is atomic; a connection lost
      // while it ran leaves it to the sweep).
      giveBack(claimed, keySlot);
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
    if (answer.reservation() == null) {
      catalogue.noteRevision(answer.revision());
      if (levelSeen != null && answer.keyLevel() != null) {
        levelSeen.accept(answer.keyLevel()); // committed
      }
      claimed.forEach(dispatcher::release);
      if (answer.versionChanged()) {
        return Optional.empty(); // the call took nothing; the caller routes again
      }
      if (answer.refusal() != null) {
        keySlots.give(keySlot);
        if (answer.refusal().status() == 401) {
          remembered.forget(key);
        }
        throw answer.refusal();
      }
      // No node slot: the key's slot (in memory) stays held while the caller waits. The call
      // drew the key's rate when it was asked to and got as far as the nodes (revision non-zero).
      throw new NoSlot(keyInCall != null && keyInCall.drawRate() && answer.revision() != 0);
    }
    NodeAttempt.Pending<T> sent;
    try {
      catalogue.noteRevision(answer.revision());
      if (levelSeen != null && answer.keyLevel() != null) {
        levelSeen.accept(answer.keyLevel()); // committed
      }
      sent = attempt.start(claimed.getFirst(), a, requestId);
    } catch (RuntimeException e) {
      unadmit(requestId, claimed, List.of(), keySlot); // no node was sent it
      throw e;
    }
    return Optional.of(
        failOver(
            new Admitted(key, a, requestId, started, answer.reservation(), List.copyOf(claimed)),
            sent,
            attempt,
            keySlot));
  }

  /** Gives back the node slots {@code claimed} and the key's slot {@code keySlot}, now. */
  private void giveBack(List<NodeTarget> claimed, UUID keySlot) {
    claimed.forEach(dispatcher::release);
    keySlots.give(keySlot);
  }

  /**
   * Ends committed request {@code requestId}, which no node was sent, as {@code no_node}: nothing
   * billed, its reservation refunded whole; gives back the node slots {@code claimed} and {@code
   * nodeSlots} and the key's slot {@code keySlot} (when not null), now or, if that fails, at the
   * next sweeps ({@link KeySlots#giveAllOrLater}). If the end itself fails, the request is left to
   * the sweep (a lost request, ADR 0042).
   */
  private void unadmit(
      String requestId, List<NodeTarget> claimed, List<UUID> nodeSlots, UUID keySlot) {
    java.util.LinkedHashSet<UUID> leases = new java.util.LinkedHashSet<>(nodeSlots);
    claimed.forEach(t -> leases.add(t.slot()));
    if (keySlot != null) {
      leases.add(keySlot);
    }
    try {
      settlement.endUnserved(requestId, RequestOutcome.NO_NODE);
    } catch (RuntimeException e) {
      Log.errorf(e, "request %s was admitted and sent nowhere; ending it failed", requestId);
    } finally {
      RuntimeException failed = keySlots.giveAllOrLater(List.copyOf(leases));
      if (failed != null) {
        Log.warnf(failed, "request %s: its slots are given back at the next sweep", requestId);
      }
    }
  }

  /** {@link NodeAttempt#admitted}'s refusal, carried out of the admission's transaction. */
  private static final class RefusedAfterAdmission extends RuntimeException {
    final ApiProblem problem;

    RefusedAfterAdmission(ApiProblem problem) {
      super(problem.getMessage(), null, false, false);
      this.problem = problem;
    }
  }

  private record Admitted(
      ApiKeyPrincipal key,
      Admission admission,
      String requestId,
      OffsetDateTime started,
      Reservation reservation,
      List<NodeTarget> targets) {
    GatewayRequests.Context context() {
      return admission.context(key, started);
    }
  }

  private <T> Dispatched<T> failOver(
      Admitted a, NodeAttempt.Pending<T> firstCall, NodeAttempt<T> attempt, UUID keySlot) {
    try {
      return failOver(a, firstCall, attempt).withKeySlot(keySlot);
    } catch (RuntimeException e) {
      keySlots.give(keySlot);
      throw e;
    }
  }

  private <T> Dispatched<T> failOver(
      Admitted a, NodeAttempt.Pending<T> firstCall, NodeAttempt<T> attempt) {
    List<NodeTarget> targets = a.targets();
    String requestId = a.requestId();
    int i = 0;
    try {
      for (; i < targets.size(); i++) {
        NodeTarget target = targets.get(i);
        NodeAttempt.Pending<T> pending = null;
        try {
          if (i > 0) {
            requests.assign(requestId, target.id());
            pending = attempt.start(target, a.admission(), requestId);
          } else {
            pending = firstCall;
          }
          T call = pending.await();
          releaseFrom(targets, i + 1);
          i = targets.size(); // every other slot is given back; this one is the request's now
          return new Dispatched<>(
              requestId, a.started(), a.admission(), a.reservation(), target, call, null);
        } catch (HttpTimeoutException e) {
          if (e instanceof HttpConnectTimeoutException) {
            failedBeforeAnswering(target, requestId, e);
            continue;
          }
          Log.warnf(
              "request %s: node %s did not answer within %s; ending the request, its reservation"
                  + " kept for the node's report",
              requestId, target.name(), gateway.firstByteTimeout());
          releaseFrom(targets, i);
          i = targets.size();
          settlement.endUnbilled(requestId, RequestOutcome.NODE_TIMEOUT);
          throw new ApiProblem(
              ProblemKind.HTTP,
              504,
              "Node timed out",
              "the node chosen for this request did not start answering within "
                  + gateway.firstByteTimeout().toSeconds()
                  + " s; nothing was billed",
              2);
        } catch (NodeRefusal e) {
          ApiProblem clients = attempt.clientFault(e);
          if (e.adapterRefused() || clients != null) {
            Log.warnf("request %s: node %s refused it: %s", requestId, target.name(), e);
            releaseFrom(targets, i);
            i = targets.size();
            endUnserved(a, RequestOutcome.REJECTED, true);
            throw clients != null ? clients : adapterRefused(a.admission().version());
          }
          if (!afterFailure(a, target, i, e)) {
            i = targets.size();
            throw budgetSpentOnFailures();
          }
        } catch (ApiProblem e) {
          Log.warnf("request %s: node %s answered unusably: %s", requestId, target.name(), e);
          releaseFrom(targets, i);
          i = targets.size();
          endUnserved(a, RequestOutcome.NODE_FAILED, true);
          throw e;
        } catch (IOException | RuntimeException e) {
          if (!afterFailure(a, target, i, e)) {
            i = targets.size();
            throw budgetSpentOnFailures();
          }
        }
      }
    } finally {
      releaseFrom(targets, i);
    }
    endUnserved(a, RequestOutcome.NO_NODE, false);
    throw noNodeAnswered(
        "every node that could serve the request failed before it answered; nothing was billed");
  }

  /**
   * Handles a node that failed before answering: fails over from it, after settling what it may
   * have released when it received the client's inputs.
   *
   * @return false when the budget cannot cover another attempt: the request has ended
   */
  private boolean afterFailure(Admitted a, NodeTarget target, int attemptIndex, Exception e) {
    failedBeforeAnswering(target, a.requestId(), e);
    if (connectionFailed(e) || !a.admission().inputsAtOpen()) {
      return true;
    }
    long bound = failedAttemptBound(a.admission());
    if (settlement.spendFailedAttempt(
        a.requestId() + "/attempt-" + (attemptIndex + 1),
        a.context(),
        a.admission().mode(),
        bound)) {
      return true;
    }
    Log.warnf(
        "request %s: the budget cannot cover another attempt after node %s failed; ending it",
        a.requestId(), target.name());
    settlement.endUnservedAtBound(a.requestId(), bound, RequestOutcome.NODE_FAILED);
    return false;
  }

  /** The most a node that received the request and failed before answering can have released. */
  private long failedAttemptBound(Admission a) {
    return Math.min(
        a.releases(),
        io.tensafe.marketplace.privacy.ReleaseCount.bound(
            a.limits().maxPromptTokens(), 0, gateway.nodeRunAheadTokens(), a.releasesPerToken()));
  }

  /**
   * Ends a request no node served: its reservation comes back when no node that received its inputs
   * is unaccounted for ({@code lastReceived} false), else it is settled to the last node's bound.
   */
  private void endUnserved(Admitted a, RequestOutcome outcome, boolean lastReceived) {
    if (lastReceived && a.admission().inputsAtOpen()) {
      settlement.endUnservedAtBound(a.requestId(), failedAttemptBound(a.admission()), outcome);
    } else {
      settlement.endUnserved(a.requestId(), outcome);
    }
  }

  private static ApiProblem budgetSpentOnFailures() {
    return noNodeAnswered(
        "the nodes tried failed before they answered, and the privacy budget covers no further"
            + " attempt (what each may have released was charged to it); nothing was billed");
  }

  private static ApiProblem adapterRefused(ServedVersion version) {
    return new ApiProblem(
        ProblemKind.ADAPTER_INCOMPATIBLE,
        "the node refused adapter "
            + version.adapterId()
            + "@"
            + version.version()
            + ": it does not fit its base model or does not open; nothing was billed, and"
            + " retrying will not help until its creator publishes a fixed version");
  }

  /**
   * The one handle on {@code d}'s end ({@link MeteredRequest}): it owns the node's slot {@code d}
   * holds and {@code keySlot}, the lease on one of the key's request slots (null: none).
   */
  public MeteredRequest meter(Dispatched<?> d, java.util.UUID keySlot) {
    return new MeteredRequest(d.requestId(), d.node().slot(), keySlot, keySlots, live);
  }

  /** 503 with Retry-After: every node tried failed before it served anything ({@code detail}). */
  public static ApiProblem noNodeAnswered(String detail) {
    return new ApiProblem(ProblemKind.HTTP, 503, "No node answered", detail, 2);
  }

  /**
   * 429 with Retry-After: every healthy node of {@code version}'s base model stayed at its slot
   * ceiling for the whole wait ({@code tensafe.gateway.slot-wait}), or this replica already had its
   * most requests waiting ({@code tensafe.gateway.max-waiting}).
   */
  private ApiProblem slotsBusy(ServedVersion version) {
    return new ApiProblem(
        ProblemKind.HTTP,
        429,
        "No capacity",
        "no healthy node serving "
            + version.baseModel()
            + " had a free slot within "
            + gateway.slotWait().toMillis()
            + " ms; retry after the time this answer's Retry-After gives",
        2);
  }

  private void failedBeforeAnswering(NodeTarget target, String requestId, Exception e) {
    String cause = e.getClass().getSimpleName() + ": " + Causes.describe(e);
    Log.warnf(
        "request %s: node %s failed before it answered, failing over: %s",
        requestId, target.name(), cause);
    dispatcher.release(target);
    if (connectionFailed(e)) {
      dispatcher.markUnreachable(target, "connection failed: " + cause);
    } else if (!(e instanceof NodeRefusal r && (r.status() == 429 || r.status() == 503))) {
      // A node that says it is busy is not failing: only other failures count for its breaker.
      try {
        dispatcher.noteFailure(target);
      } catch (RuntimeException recording) {
        Log.warnf("node %s: counting its failure failed: %s", target.name(), recording);
      }
    }
  }

  /** The node could not be reached at all (refused, unresolvable, connect timeout). */
  public static boolean connectionFailed(Throwable e) {
    return Causes.any(
        e,
        c ->
            c instanceof java.net.ConnectException
                || c instanceof HttpConnectTimeoutException
                || c instanceof java.net.UnknownHostException
                || c instanceof java.nio.channels.UnresolvedAddressException);
  }

  /** Gives back the slots of {@code targets} from index {@code from} on. */
  private void releaseFrom(List<NodeTarget> targets, int from) {
    for (NodeTarget other : targets.subList(Math.min(from, targets.size()), targets.size())) {
      dispatcher.release(other);
    }
  }
}
