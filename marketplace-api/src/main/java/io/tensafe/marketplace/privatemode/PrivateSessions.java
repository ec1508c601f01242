package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.logging.Log;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.fleet.NodeRefusal;
import io.tensafe.marketplace.fleet.NodeSessionLink;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.gateway.Admission;
import io.tensafe.marketplace.gateway.Dispatch;
import io.tensafe.marketplace.gateway.Dispatched;
import io.tensafe.marketplace.gateway.GatewayConfig;
import io.tensafe.marketplace.gateway.GatewayRequests;
import io.tensafe.marketplace.gateway.KeySlots;
import io.tensafe.marketplace.gateway.LiveRequests;
import io.tensafe.marketplace.gateway.MeteredRequest;
import io.tensafe.marketplace.gateway.ModelResolver;
import io.tensafe.marketplace.gateway.NodeAttempt;
import io.tensafe.marketplace.gateway.RequestMode;
import io.tensafe.marketplace.gateway.RequestOutcome;
import io.tensafe.marketplace.gateway.ServedVersion;
import io.tensafe.marketplace.gateway.ServedVersions;
import io.tensafe.marketplace.gateway.Settlement;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Private sessions from open to bill (ADR 0017, ADR 0024, ADR 0026). Opening takes one of the key's
 * request slots ({@link KeySlots}) and goes through the gateway's one admission and fail-over
 * ({@link Dispatch}), as hosted requests do: the named version resolved, the request recorded (mode
 * {@code private}) and the DP budget reserved for {@code (max_prompt_tokens + max_tokens) × the
 * version's noised sites} releases of ρ = 1/(2z²); this class adds the session protocol: the node's
 * plan, whose noised sites must be the version's; and the creator's control (issue 49): a version
 * not offered for private mode is refused before anything is taken, and the session's most tokens
 * are reserved from its organisation's private-token quota in the admission's transaction ({@link
 * PrivateModeOffers}). Frames are relayed by {@link PrivateFrames}. Ending (the client's {@code
 * DELETE}, the idle timeout, or a node that fails) bills the counts once ({@link
 * PrivateSettlement}).
 *
 * <p>Liveness: a session is live on the replica that relays it while it is in {@link #live}, and
 * registered with the gateway's one live set ({@link LiveRequests}) as hosted relays are: the one
 * sweep ({@code gateway.RequestSweeper}) ends it when no frame was accepted for {@code
 * tensafe.gateway.private-idle-timeout} ({@link SessionLiveness#endIfIdle}), vouches for it
 * otherwise, and lets it go here without a second bill when another replica ended it ({@link
 * SessionLiveness#endedElsewhere}), as a frame that finds it ended does.
 */
@ApplicationScoped
public class PrivateSessions {
  @Inject GatewayConfig gateway;
  @Inject PrivateModeConfig privateMode;
  @Inject ModelResolver resolver;
  @Inject ServedVersions versions;
  @Inject NodeDispatcher dispatcher;
  @Inject Dispatch dispatch;
  @Inject KeySlots slots;
  @Inject GatewayRequests requests;
  @Inject PrivateSettlement settlement;
  @Inject PrivateModeOffers offers;
  @Inject ObjectMapper json;

  private final Map<UUID, LiveSession> live = new ConcurrentHashMap<>();

  /**
   * The calls to nodes' sessions, frames included ({@link PrivateFrames}), each within {@code
   * tensafe.gateway.private-frame-timeout}.
   */
  private NodeSessionLink link;

  /** The link to nodes' sessions (a method: a client proxy's fields are not the bean's). */
  NodeSessionLink link() {
    return link;
  }

  @PostConstruct
  void connect() {
    link =
        new NodeSessionLink(
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build(),
            // The client's upload and the node's answer, each within the frame timeout: the
            // node's clock starts when the body has arrived (PrivateFrames blames by that).
            privateMode.privateFrameTimeout().multipliedBy(2));
  }

  /** A session opened on a node: the answer to the client. */
  public record Opened(UUID id, ServedVersion version, JsonNode nodeAnswer, String configSha256) {}

  /**
   * Opens a session.
   *
   * @throws ApiProblem 400 for a bad request, 404 for a model the key may not use, 403 for a
   *     version whose creator does not offer private mode (before anything is taken), 422 for an
   *     adapter its node refuses or a session larger than a whole period's private-token quota, 429
   *     when the key's rate, the budget or the organisation's private-token quota is exhausted, 502
   *     when the node's plan does not noise the version's sites, 503 when no node takes it
   */
  public Opened open(ApiKeyPrincipal key, PrivateSessionRequest r) {
    SessionBounds c = SessionBounds.of(r);
    Dispatched<OnNode> d;
    try (KeySlots.Entered entered = slots.enter(key, null)) {
      d =
          dispatch.dispatch(
              key,
              catalogue -> {
                ServedVersion version = resolver.named(key, r.model(), catalogue);
                offers.requireOffered(version);
                requirePrivatePriceWithinCap(key, version);
                return new Admission(
                    version,
                    null,
                    RequestMode.PRIVATE,
                    new GatewayRequests.Limits(c.maxPromptTokens(), c.maxTokens(), -1),
                    versions.noisedSitesPerToken(version.versionId()));
              },
              new Opening(r, c),
              null); // the session's answer carries no rate headers
    }
    UUID id = UUID.fromString(d.requestId());
    MeteredRequest metered = dispatch.meter(d, d.keySlot());
    try {
      ServedVersion version = d.admission().version();
      LiveSession s =
          new LiveSession(
              id,
              key,
              metered,
              version,
              d.node(),
              d.startedAt(),
              d.call().plan(),
              new FrameOrder(c.maxPromptTokens(), c.maxTokens() - 1, d.call().chunk()));
      live.put(id, s);
      metered.live(new SessionLiveness(s));
      return new Opened(
          id,
          version,
          d.call().answer(),
          versions.baseModelConfigSha256(version.adapterId(), version.version()).orElse(null));
    } catch (RuntimeException e) {
      // Its slots and its node session back; still open and no longer vouched for, the sweep
      // ends it (nothing served, its reservation refunded).
      live.remove(id);
      metered.letGo();
      closeOnNode(d.node(), id);
      throw e;
    }
  }

  /**
   * A private session's one price per 1k tokens (ADR 0024) must be within the key's cap on both
   * figures, since it is paid for prompt and completion tokens alike.
   */
  private void requirePrivatePriceWithinCap(ApiKeyPrincipal key, ServedVersion version) {
    if (key.maxPrice() == null) {
      return;
    }
    long price = versions.privatePriceNow(version.adapterId(), version.version());
    if (!key.maxPrice().allows(version.currency(), price, price)) {
      throw new ApiProblem(
              ProblemKind.PRICE_ABOVE_CAP,
              "model '"
                  + version.adapterId()
                  + "' costs "
                  + version.currency()
                  + " "
                  + price
                  + " micro-units per 1k tokens, prompt and completion alike, in private mode;"
                  + " this API key pays at most "
                  + key.maxPrice())
          .withParam("model");
    }
  }

  /** A session a node opened: its answer, its checked plan and its prefill chunk. */
  record OnNode(JsonNode answer, SessionPlan plan, int chunk) {}

  /**
   * Opening a session on one node ({@link Dispatch} fails over between them). The node's plan must
   * noise the version's sites, which the budget was reserved for: as many per token as the version
   * has ({@link ServedVersions#noisedSitesPerToken}) and, listed, exactly the version's adapted
   * modules, each once ({@link ServedVersions#adaptedModules}), the manifest's word rather than the
   * node's. A node whose plan does not ends the session unserved (502); a node whose answer does
   * not parse is failed over from.
   */
  private final class Opening implements NodeAttempt<OnNode> {
    private final PrivateSessionRequest r;
    private final SessionBounds c;

    Opening(PrivateSessionRequest r, SessionBounds c) {
      this.r = r;
      this.c = c;
    }

    @Override
    public Pending<OnNode> start(NodeTarget target, Admission a, String requestId) {
      UUID id = UUID.fromString(requestId);
      byte[] bytes = nodeBody(r, c, a.version(), id);
      return new Pending<>() {
        @Override
        public OnNode await() throws IOException {
          return open(target, a, id, bytes);
        }

        @Override
        public void abandon() {
          // nothing was sent yet: the node is called in await
        }
      };
    }

    /**
     * Reserves the session's most tokens, {@code max_prompt_tokens + max_tokens}, of its
     * organisation's private-token quota of the version ({@link PrivateModeOffers#reserve}).
     */
    @Override
    public boolean takesMoreAtAdmission() {
      return true;
    }

    @Override
    public void admitted(Admission a, ApiKeyPrincipal key, String requestId) {
      offers.reserve(
          UUID.fromString(requestId),
          key.organisationId(),
          a.version(),
          (long) c.maxPromptTokens() + c.maxTokens());
    }

    @Override
    public ApiProblem clientFault(NodeRefusal e) {
      return e.status() == 400
          ? ProblemTypes.validation(
              "the node refused the session's public key or limits; nothing was billed")
          : null;
    }

    private OnNode open(NodeTarget target, Admission a, UUID id, byte[] bytes) throws IOException {
      JsonNode answer = link.open(target, bytes);
      SessionPlan plan;
      int chunk = answer.path("prefill_chunk_tokens").asInt(0);
      try {
        if (chunk < FrameOrder.MIN_PREFILL_CHUNK || chunk > 0xFFFF) {
          throw new IllegalArgumentException("the prefill chunk " + chunk + " is out of range");
        }
        plan = SessionPlan.of(answer, frameLimits().maxCiphertextBytes());
      } catch (IllegalArgumentException e) {
        closeOnNode(target, id);
        throw new IOException("the node's open answer: " + e.getMessage(), e);
      }
      int sites = a.releasesPerToken();
      String version = a.version().adapterId() + "@" + a.version().version();
      if (plan.noisedSitesPerToken() != sites) {
        throw refused(
            target,
            id,
            version,
            "plans "
                + plan.noisedSitesPerToken()
                + " noised sites per token, the version "
                + sites);
      }
      Optional<String> mismatch = plan.mismatch(versions.adaptedModules(a.version().versionId()));
      if (mismatch.isPresent()) {
        throw refused(
            target, id, version, "plans other sites than the version's: " + mismatch.get());
      }
      return new OnNode(answer, plan, chunk);
    }
  }

  /**
   * Ends session {@code id} on {@code target}, whose plan does not run the version's sites, before
   * any frame: the 502 for the client ({@link Dispatch} then ends the request unserved, its
   * reservation refunded). The client is told fixed text naming only {@code version}; what the node
   * planned (its words: site paths, counts) goes to the log, as for hosted mode.
   *
   * @param why for the log, after "node N "
   */
  private ApiProblem refused(NodeTarget target, UUID id, String version, String why) {
    closeOnNode(target, id);
    Log.warnf("private session %s: node %s %s", id, target.name(), why);
    return new ApiProblem(
        ProblemKind.HTTP,
        502,
        "Node failed",
        "the node's plan does not run each site "
            + version
            + " adapts once, which its privacy budget is charged for; the session ended unserved"
            + " and nothing was billed",
        0);
  }

  /** The node's open request: the session, the adapter, the client's keys and the bounds. */
  private byte[] nodeBody(
      PrivateSessionRequest r, SessionBounds c, ServedVersion version, UUID id) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("session_id", id.toString());
    body.put("adapter", version.adapterId() + "@" + version.version());
    body.put("public_keys", r.publicKeys());
    body.put("frame_key_wrap", r.frameKeyWrap());
    body.put("max_prompt_tokens", c.maxPromptTokens());
    body.put("max_decode_steps", c.maxTokens() - 1);
    if (r.dpNoiseMultiplier() != null) {
      body.put("dp_noise_multiplier", r.dpNoiseMultiplier());
    }
    body.put("max_frame_bytes", gateway.maxFrameBytes());
    try {
      return json.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Ends a session at the client's request and bills it.
   *
   * @throws ApiProblem 404 for a session this key does not have
   */
  public SessionBill close(ApiKeyPrincipal key, String sessionId) {
    LiveSession s = live(key, sessionId);
    s.lock.lock();
    try {
      if (s.ended) {
        throw ended(sessionId);
      }
      return end(s, RequestOutcome.COMPLETED);
    } finally {
      s.lock.unlock();
    }
  }

  /** A session as the one sweep sees it ({@link LiveRequests.Live}). */
  private final class SessionLiveness implements LiveRequests.Live {
    private final LiveSession s;

    SessionLiveness(LiveSession s) {
      this.s = s;
    }

    /**
     * Ends the session, billed what it was served, when no frame was accepted for {@code
     * tensafe.gateway.private-idle-timeout}; a session with a frame in flight is not idle.
     */
    @Override
    public boolean endIfIdle() {
      if (s.idleNanos() <= privateMode.privateIdleTimeout().toNanos() || !s.lock.tryLock()) {
        return false;
      }
      try {
        if (!s.ended) {
          bill(s, RequestOutcome.CLIENT_GONE);
          closeOnNodeLater(s); // off the sweep's thread: a node slow to answer cannot stall it
        }
        return true;
      } finally {
        s.lock.unlock();
      }
    }

    @Override
    public boolean endedElsewhere() {
      if (!s.lock.tryLock()) {
        return false; // a frame is in flight: it finds the session ended, or the next sweep does
      }
      try {
        if (!s.ended) {
          letGo(s);
          closeOnNodeLater(s);
        }
        return true;
      } finally {
        s.lock.unlock();
      }
    }
  }

  /** Sessions relayed by this instance now. */
  public int open() {
    return live.size();
  }

  /**
   * Bills and ends {@code s} through its one handle, which gives back its slots with the bill's
   * commit, and closes it on its node. The caller holds its lock.
   */
  private SessionBill end(LiveSession s, RequestOutcome outcome) {
    try {
      return bill(s, outcome);
    } finally {
      closeOnNode(s.node, s.id);
    }
  }

  /** Bills and ends {@code s} through its one handle; the caller holds its lock. */
  private SessionBill bill(LiveSession s, RequestOutcome outcome) {
    s.ended = true;
    live.remove(s.id);
    Settlement.Served served =
        new Settlement.Served(
            s.id,
            s.key.organisationId(),
            s.key.keyId(),
            s.version.adapterId(),
            s.version.version(),
            s.startedAt,
            s.order.promptTokens(),
            s.order.completionTokens());
    return s.metered
        .end(() -> settlement.settle(served, outcome))
        .orElseGet(() -> new SessionBill(0, 0, 0, null, -1));
  }

  /**
   * Ends {@code s} here without billing it, and closes it on its node: another replica ended and
   * billed it. The caller holds its lock.
   */
  void drop(LiveSession s) {
    letGo(s);
    closeOnNode(s.node, s.id);
  }

  /** Ends {@code s} here without billing it; the caller holds its lock. */
  private void letGo(LiveSession s) {
    Log.infof("private session %s was ended by another replica; dropped here", s.id);
    s.ended = true;
    live.remove(s.id);
    s.metered.letGo();
  }

  /** Closes {@code s} on its node on a thread of its own. */
  private void closeOnNodeLater(LiveSession s) {
    Thread.ofVirtual().name("close-session-" + s.id).start(() -> closeOnNode(s.node, s.id));
  }

  private void closeOnNode(NodeTarget node, UUID id) {
    try {
      link.close(node, id);
    } catch (IOException e) {
      Log.debugf("private session %s: closing it on node %s: %s", id, node.name(), e);
    }
  }

  /**
   * Ends {@code s} after its node failed ({@code e}), billed for what it served; the caller holds
   * its lock.
   *
   * @return the 502 problem for the client
   */
  ApiProblem nodeFailed(LiveSession s, Exception e) {
    Log.warnf("private session %s: node %s failed: %s", s.id, s.node.name(), e);
    // Only a node that cannot be reached is marked so; any other failure counts for its breaker
    // through the request's outcome (ADR 0038).
    if (Dispatch.connectionFailed(e)) {
      dispatcher.markUnreachable(s.node, "private session failed: " + e.getMessage());
    }
    SessionBill bill = end(s, RequestOutcome.NODE_FAILED);
    return new ApiProblem(
        ProblemKind.HTTP,
        502,
        "Node failed",
        "the node serving this session failed; the session ended and was billed for the "
            + bill.promptTokens()
            + " prompt and "
            + bill.completionTokens()
            + " completion tokens it served",
        0);
  }

  /** What a frame may be: the frame limit, at most 65535 ciphertexts of up to the frame limit. */
  FrameLimits frameLimits() {
    int max = (int) Math.min(Integer.MAX_VALUE - 8, gateway.maxFrameBytes());
    return new FrameLimits(max, 0xFFFF, max);
  }

  /**
   * The session {@code sessionId} of {@code key}, live on this replica.
   *
   * @throws ApiProblem 404 when there is none: unknown, another key's, or ended
   */
  LiveSession live(ApiKeyPrincipal key, String sessionId) {
    UUID id;
    try {
      id = UUID.fromString(sessionId);
    } catch (IllegalArgumentException e) {
      throw ended(sessionId);
    }
    LiveSession s = live.get(id);
    if (s == null || !s.key.keyId().equals(key.keyId())) {
      throw ended(sessionId);
    }
    return s;
  }

  /** 404: no open private session of this key by that id (never one, another key's, or ended). */
  static ApiProblem ended(String sessionId) {
    return ProblemTypes.notFound("an open private session " + sessionId);
  }
}
