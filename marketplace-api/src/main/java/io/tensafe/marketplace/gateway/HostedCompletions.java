package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeCall;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Hosted completions, metered (ADR 0026): the key entered ({@link KeySlots#enter}), the prompt
 * counted with the model's tokenizer, the request routed, admitted with a DP reservation of
 * (counted prompt + {@code n × max_tokens}) × the version's releases per token (the prompt runs
 * once for all {@code n} choices, ADR 0044), and dispatched with fail-over ({@link Dispatch}); its
 * events are then read through a {@link HostedRelay}, which bills what it relayed when the request
 * ends.
 */
@ApplicationScoped
public class HostedCompletions {
  @Inject KeySlots slots;
  @Inject Dispatch dispatch;
  @Inject ModelResolver resolver;
  @Inject PromptTokenizer tokenizer;
  @Inject Settlement settlement;
  @Inject GatewayRequests requests;
  @Inject GatewayConfig gateway;
  @Inject GatewayMetrics metrics;
  @Inject LiveRequests live;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /**
   * Routes, records, reserves and dispatches {@code r} for {@code key}.
   *
   * @param levelSeen told the key's requests-per-minute bucket as this request left it (the last
   *     call wins), also before a refusal that drew from it or knew it ({@link Dispatch#dispatch});
   *     null when not wanted
   * @throws io.tensafe.marketplace.problem.ApiProblem as {@link Dispatch#dispatch} decides
   */
  public HostedRelay start(
      ApiKeyPrincipal key,
      HostedRequest r,
      java.util.function.Consumer<io.tensafe.marketplace.limits.KeyRateLevel> levelSeen) {
    // Entered first: a key this replica knows to be over its limits costs no tokenizing.
    try (KeySlots.Entered entered = slots.enter(key, levelSeen)) {
      // Counted before the transaction: tokenizing a long prompt holds no connection.
      int prompt = tokenizer.count(r.renderedPrompt());
      Streaming streaming = new Streaming(r);
      Dispatched<NodeCall> d;
      try {
        d =
            dispatch.dispatch(
                key,
                catalogue -> {
                  ModelResolver.Resolved resolved =
                      resolver.resolve(key, r.model(), r.routing(), catalogue);
                  ServedVersion v = resolved.version();
                  return new Admission(
                      v,
                      resolved.reason(),
                      RequestMode.HOSTED,
                      new GatewayRequests.Limits(
                          Math.max(1, prompt), r.maxCompletionTokens(), prompt),
                      v.releasesPerToken());
                },
                streaming,
                levelSeen);
      } finally {
        streaming.noLongerLive(); // but the one answered, which the relay removes when it ends
      }
      return new HostedRelay(
          new HostedRelay.Services(requests, settlement, metrics, gateway),
          key,
          dispatch.meter(d, d.keySlot()),
          d,
          prompt,
          new RelayedChoices(tokenizer, r.choices()),
          r.maxTokens(),
          r.topLogprobs());
    }
  }

  /**
   * A hosted request's call to one node: its generation stream. A node's 400 is the request's fault
   * (its prompt or parameters), so no other node is tried.
   */
  private final class Streaming implements NodeAttempt<NodeCall> {
    private final HostedRequest r;

    /** The request ids sent to a node so far; vouched for as live until the dispatch returns. */
    private final java.util.List<String> sent = new java.util.ArrayList<>();

    /** The one answered, which stays live; null until then. */
    private String answered;

    Streaming(HostedRequest r) {
      this.r = r;
    }

    /**
     * Stops vouching for every request id sent but the answered one: those ended in the dispatch
     * (or were never committed).
     */
    void noLongerLive() {
      for (String id : sent) {
        if (!id.equals(answered)) {
          live.remove(id);
        }
      }
    }

    @Override
    public Pending<NodeCall> start(NodeTarget target, Admission a, String requestId) {
      // Live from the moment a node may run it: waiting for a node's first byte (or failing over)
      // can outlast the report deadline, and the sweep must not take a request being dispatched
      // for one whose gateway died.
      if (!sent.contains(requestId)) {
        sent.add(requestId);
        live.add(requestId, LiveRequests.Live.HOSTED);
      }
      byte[] body =
          r.nodeBody()
              .of(
                  a.version().adapterId() + "@" + a.version().version(),
                  requestId,
                  (int) a.limits().maxPromptTokens());
      NodeCall.Pending call =
          NodeCall.begin(http, target, body, gateway.firstByteTimeout(), gateway.nodeIdleTimeout());
      return new Pending<>() {
        @Override
        public NodeCall await() throws java.io.IOException {
          NodeCall answer = call.await();
          answered = requestId;
          return answer;
        }

        @Override
        public void abandon() {
          call.abandon();
        }
      };
    }

    @Override
    public io.tensafe.marketplace.problem.ApiProblem clientFault(
        io.tensafe.marketplace.fleet.NodeRefusal e) {
      return e.status() == 400
          ? io.tensafe.marketplace.problem.ProblemTypes.validation(
              "the node refused the request's prompt or parameters; nothing was billed")
          : null;
    }
  }
}
