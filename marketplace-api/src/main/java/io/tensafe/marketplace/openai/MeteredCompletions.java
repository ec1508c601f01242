package io.tensafe.marketplace.openai;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeCall;
import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.fleet.NodeRefusal;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.Reservation;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.Causes;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A metered request from start to bill: resolve the model (an adapter, or {@code auto} through the
 * step-gate), pick nodes, then in one transaction record the request and reserve the DP budget for
 * the most it can release ((prompt-token bound + max_tokens) × the adapter's releases per token),
 * dispatch (failing over to the next node until one answers; nothing has reached the client before
 * that), and, when the node's final event arrives, charge the usage and settle the reservation to
 * the releases made. A request that no node takes gets its reservation back. A stream that ends
 * early (the client went away, the node died) is charged for what the client was sent ({@link
 * RequestSettlement}) and its reservation settled by the node's usage report; if the marketplace
 * itself went down mid-stream, the node's report bills it ({@code UsageEvents}). Each request id is
 * billed once either way.
 */
@ApplicationScoped
public class MeteredCompletions {
  @Inject GatewayConfig gateway;
  @Inject ModelResolver resolver;
  @Inject NodeDispatcher dispatcher;
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;
  @Inject RequestSettlement settlement;
  @Inject RequestAdmission admission;
  @Inject GatewayMetrics metrics;
  @Inject PromptTokenizer tokenizer;

  @Inject io.tensafe.marketplace.limits.Limits limits;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /**
   * A request dispatched to a node whose events the caller now reads.
   *
   * @param promptTokens the prompt's tokens as the marketplace counted them with the nodes'
   *     tokenizer: what the prompt is billed, whatever the node claims
   */
  public record Started(
      UUID keyId,
      UUID keySlot,
      String requestId,
      ServedVersion version,
      String routeReason,
      Reservation reservation,
      NodeTarget node,
      NodeCall call,
      OffsetDateTime startedAt,
      int promptTokens) {}

  /**
   * Routes, records, reserves and dispatches {@code r} for {@code key}.
   *
   * @throws ApiProblem 429 with Retry-After when the key has started {@code
   *     tensafe.gateway.requests-per-minute-per-key} requests in the last minute, or already has
   *     {@code tensafe.gateway.max-concurrency-per-key} requests in flight, on this instance
   */
  public Started start(ApiKeyPrincipal key, CompletionRequest r) {
    UUID slot = acquireSlot(key);
    try {
      return dispatch(key, r, slot);
    } catch (RuntimeException e) {
      releaseSlot(slot);
      throw e;
    }
  }

  /**
   * Takes one of the key's request slots (hosted requests and private sessions alike), counted for
   * every replica together unless {@code tensafe.limits.scope} says otherwise.
   *
   * @return the slot's lease, for {@link #releaseSlot}
   * @throws ApiProblem 429 with Retry-After when the key has started {@code
   *     tensafe.gateway.requests-per-minute-per-key} requests in the last minute, or already has
   *     {@code tensafe.gateway.max-concurrency-per-key} in flight
   */
  public UUID acquireSlot(ApiKeyPrincipal key) {
    var admission = limits.admitKey(key.keyId(), gateway.maxConcurrencyPerKey());
    if (admission.lease() != null) {
      return admission.lease();
    }
    throw new ApiProblem(
        ProblemKind.RATE_LIMITED,
        admission.rateLimited()
            ? "this API key may start " + limits.requestsPerMinute() + " requests per minute"
            : "this API key already has " + gateway.maxConcurrencyPerKey() + " requests in flight",
        admission.retryAfterSeconds());
  }

  /** Gives back a slot {@link #acquireSlot} took. */
  public void releaseSlot(UUID lease) {
    limits.slots().give(lease);
  }

  /**
   * What a request was admitted with: the call already sent to the first of {@code targets}, and
   * the body for the others.
   */
  private record Admitted(
      ServedVersion version,
      String reason,
      String requestId,
      OffsetDateTime started,
      Reservation reservation,
      List<NodeTarget> targets,
      int promptTokens,
      byte[] body,
      NodeCall.Pending firstCall) {}

  private Started dispatch(ApiKeyPrincipal key, CompletionRequest r, UUID slot) {
    // Routing, node choice, the request record and the DP reservation share one transaction, so
    // the gateway commits once; the first node is sent the request once it is recorded and
    // reserved, so it starts while the transaction commits, and its answer is read only after the
    // commit. Slots claimed on nodes are given back, and the call abandoned, if the transaction
    // fails.
    List<NodeTarget> claimed = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<NodeCall.Pending> sent =
        new java.util.concurrent.atomic.AtomicReference<>();
    Admitted a;
    try {
      // Counted before the transaction: tokenizing a long prompt holds no connection.
      int promptTokens = tokenizer.count(r.renderedPrompt());
      a = QuarkusTransaction.requiringNew().call(() -> admit(key, r, promptTokens, claimed, sent));
    } catch (RuntimeException e) {
      if (sent.get() != null) {
        sent.get().abandon();
      }
      claimed.forEach(dispatcher::release);
      throw e;
    }
    return send(key, a, slot);
  }

  private Admitted admit(
      ApiKeyPrincipal key,
      CompletionRequest r,
      int promptTokens,
      List<NodeTarget> claimed,
      java.util.concurrent.atomic.AtomicReference<NodeCall.Pending> sent) {
    ModelResolver.Resolved resolved = resolver.resolve(key, r);
    ServedVersion version = resolved.version();
    String reason = resolved.reason();
    String requestId = UUID.randomUUID().toString();
    OffsetDateTime started = OffsetDateTime.now(ZoneOffset.UTC);
    long releases;
    try {
      releases =
          Math.multiplyExact(
              r.promptTokenBound() + r.maxTokens(), (long) version.releasesPerToken());
    } catch (ArithmeticException e) {
      throw ProblemTypes.validation("the prompt is too long");
    }
    claimed.addAll(
        dispatcher.candidates(version.fleetId(), version.baseModel(), version.adapterId()));
    if (claimed.isEmpty()) {
      throw noCapacity(version);
    }
    byte[] body = r.nodeBody(version.adapterId() + "@" + version.version(), requestId);
    NodeTarget first = claimed.getFirst();
    Reservation reservation =
        admission.admit(
            requestId,
            new GatewayRequests.Context(
                key.organisationId(),
                key.keyId(),
                version.adapterId(),
                version.version(),
                reason,
                started,
                false,
                new GatewayRequests.Limits(r.promptTokenBound(), r.maxTokens(), promptTokens)),
            first.id(),
            releases,
            RequestMode.HOSTED,
            () -> sent.set(NodeCall.begin(http, first, body, gateway.firstByteTimeout())));
    return new Admitted(
        version,
        reason,
        requestId,
        started,
        reservation,
        List.copyOf(claimed),
        promptTokens,
        body,
        sent.get());
  }

  /**
   * Calls the admitted nodes in turn until one starts answering. A node that cannot be reached or
   * refuses before generating is failed over from; a node that does not answer within the
   * first-byte timeout may be running the request, so it is not: its connection is dropped (which
   * cancels the generation there), the request ends as {@link RequestOutcome#NODE_TIMEOUT} with
   * nothing billed and its reservation kept for that node's report to settle. Every slot taken is
   * given back on every path; node names and node answers go to the log, never to the client.
   */
  private Started send(ApiKeyPrincipal key, Admitted a, UUID slot) {
    ServedVersion version = a.version();
    String requestId = a.requestId();
    List<NodeTarget> targets = a.targets();
    int i = 0;
    try {
      for (; i < targets.size(); i++) {
        NodeTarget target = targets.get(i);
        try {
          if (i > 0) {
            requests.assign(requestId, target.id());
          }
          NodeCall call =
              i == 0
                  ? a.firstCall().await()
                  : NodeCall.start(http, target, a.body(), gateway.firstByteTimeout());
          releaseFrom(targets, i + 1);
          i = targets.size(); // every other slot is given back; this one is the request's now
          return new Started(
              key.keyId(),
              slot,
              requestId,
              version,
              a.reason(),
              a.reservation(),
              target,
              call,
              a.started(),
              a.promptTokens());
        } catch (HttpTimeoutException e) {
          if (e instanceof HttpConnectTimeoutException) {
            failedBeforeGenerating(target, requestId, e);
            continue;
          }
          Log.warnf(
              "request %s: node %s did not answer within %s; ending the request, its reservation"
                  + " kept for the node's report",
              requestId, target.name(), gateway.firstByteTimeout());
          releaseFrom(targets, i);
          i = targets.size();
          requests.end(requestId, RequestOutcome.NODE_TIMEOUT, 0, 0);
          throw new ApiProblem(
              ProblemKind.HTTP,
              504,
              "Node timed out",
              "the node chosen for this request did not start answering within "
                  + gateway.firstByteTimeout().toSeconds()
                  + " s; nothing was billed",
              2);
        } catch (NodeRefusal e) {
          if (!e.adapterRefused()) {
            failedBeforeGenerating(target, requestId, e);
            continue;
          }
          Log.warnf("request %s: node %s refused the adapter: %s", requestId, target.name(), e);
          releaseFrom(targets, i);
          i = targets.size();
          endUnserved(requestId, RequestOutcome.REJECTED);
          throw new ApiProblem(
              ProblemKind.ADAPTER_INCOMPATIBLE,
              "the node refused adapter "
                  + version.adapterId()
                  + "@"
                  + version.version()
                  + ": it does not fit its base model or does not open; nothing was billed, and"
                  + " retrying will not help until its creator publishes a fixed version");
        } catch (IOException | RuntimeException e) {
          failedBeforeGenerating(target, requestId, e);
        }
      }
    } finally {
      releaseFrom(targets, i);
    }
    endUnserved(requestId, RequestOutcome.NO_NODE);
    throw noNodeAnswered(
        "every node that could serve the request failed before its first token; nothing was"
            + " billed");
  }

  /** 503 with Retry-After: every node tried failed before it served anything ({@code detail}). */
  public static ApiProblem noNodeAnswered(String detail) {
    return new ApiProblem(ProblemKind.HTTP, 503, "No node answered", detail, 2);
  }

  /** 503 with Retry-After: no healthy node of {@code version}'s base model has a free slot. */
  public static ApiProblem noCapacity(ServedVersion version) {
    return new ApiProblem(
        ProblemKind.HTTP,
        503,
        "No capacity",
        "no healthy node serving " + version.baseModel() + " has a free slot",
        2);
  }

  /** Ends a request no node ran: nothing of the client's was released, so the budget comes back. */
  private void endUnserved(String requestId, RequestOutcome outcome) {
    QuarkusTransaction.requiringNew()
        .run(
            () -> {
              budgets.refund(requestId);
              requests.end(requestId, outcome, 0, 0);
            });
  }

  private void failedBeforeGenerating(NodeTarget target, String requestId, Exception e) {
    String cause = e.getClass().getSimpleName() + ": " + Causes.describe(e);
    Log.warnf(
        "request %s: node %s failed before its first token, failing over: %s",
        requestId, target.name(), cause);
    dispatcher.release(target);
    if (connectionFailed(e)) {
      dispatcher.markUnreachable(target, "connection failed: " + cause);
    }
  }

  /** The node could not be reached at all (refused, unresolvable, connect timeout). */
  private static boolean connectionFailed(Throwable e) {
    return Causes.any(
        e,
        c ->
            c instanceof java.net.ConnectException
                || c instanceof java.net.http.HttpConnectTimeoutException
                || c instanceof java.net.UnknownHostException
                || c instanceof java.nio.channels.UnresolvedAddressException);
  }

  /** Gives back the slots of {@code targets} from index {@code from} on. */
  private void releaseFrom(List<NodeTarget> targets, int from) {
    for (NodeTarget other : targets.subList(Math.min(from, targets.size()), targets.size())) {
      dispatcher.release(other);
    }
  }

  /**
   * Charges a finished request and settles its reservation to the node's account of its DP
   * releases; frees the node's slot.
   */
  public RequestSettlement.Settled finish(Started s, ApiKeyPrincipal key, NodeUsage usage) {
    RequestSettlement.Settled settled;
    try {
      // The slots go back with the settlement's commit (one round trip fewer), and on their own
      // if it fails.
      settled =
          QuarkusTransaction.requiringNew()
              .call(
                  () -> {
                    RequestSettlement.Settled done = settlement.completed(s, key, usage);
                    limits.slots().giveAllWithTransaction(leases(s));
                    return done;
                  });
    } catch (RuntimeException e) {
      release(s);
      throw e;
    }
    metrics.ended(RequestOutcome.COMPLETED, usage.completionTokens());
    return settled;
  }

  /**
   * Ends a request whose stream did not finish: bills what the client was sent ({@link
   * RequestSettlement#endedEarly}), then closes the node's stream (so its report, if any, comes
   * after the bill) and frees the slot.
   */
  public void endEarly(Started s, ApiKeyPrincipal key, RequestOutcome outcome, Delivered sent) {
    try {
      settlement.endedEarly(s, key, outcome, sent);
      metrics.ended(outcome, sent.completionTokens());
    } finally {
      s.call().close();
      release(s);
    }
  }

  private void release(Started s) {
    limits.slots().giveAll(leases(s));
  }

  /** The node's and the key's lease of {@code s}. */
  private static List<UUID> leases(Started s) {
    return List.of(s.node().slot(), s.keySlot());
  }
}
