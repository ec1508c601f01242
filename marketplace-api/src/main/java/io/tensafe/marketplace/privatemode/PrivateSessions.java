package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.fleet.NodeRefusal;
import io.tensafe.marketplace.fleet.NodeSessionLink;
import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.openai.GatewayConfig;
import io.tensafe.marketplace.openai.GatewayRequests;
import io.tensafe.marketplace.openai.MeteredCompletions;
import io.tensafe.marketplace.openai.ModelResolver;
import io.tensafe.marketplace.openai.RequestAdmission;
import io.tensafe.marketplace.openai.RequestMode;
import io.tensafe.marketplace.openai.RequestOutcome;
import io.tensafe.marketplace.openai.ServedVersion;
import io.tensafe.marketplace.openai.ServedVersions;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Private sessions from open to bill (ADR 0017). Opening resolves the named version, takes one of
 * the key's request slots, records the request (mode {@code private}) and reserves the DP budget
 * for {@code (max_prompt_tokens + max_tokens) × releases per token} in one transaction, then opens
 * the session on the first node that takes it (failing over as hosted requests do). Each client
 * frame is read within its bound, checked against the session's {@link FrameOrder} on a copy,
 * relayed, and the copy kept only when the node's answer frame came back whole: so the count the
 * session is billed from moves only for rounds the node served. Ending (the client's {@code
 * DELETE}, the idle timeout, or a node that fails) bills those counts once ({@link
 * PrivateSettlement}).
 */
@ApplicationScoped
public class PrivateSessions {
  @Inject GatewayConfig gateway;
  @Inject ModelResolver resolver;
  @Inject ServedVersions versions;
  @Inject NodeDispatcher dispatcher;
  @Inject RequestAdmission admission;
  @Inject GatewayRequests requests;
  @Inject MeteredCompletions metered;
  @Inject PrivateSettlement settlement;
  @Inject ObjectMapper json;

  private final Map<UUID, LiveSession> live = new ConcurrentHashMap<>();
  private final NodeSessionLink link =
      new NodeSessionLink(
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build(),
          Duration.ofMinutes(2));

  /** A session opened on a node: the answer to the client. */
  public record Opened(UUID id, ServedVersion version, JsonNode nodeAnswer, String configSha256) {}

  /**
   * Opens a session.
   *
   * @throws ApiProblem 400 for a bad request, 404 for a model the key may not use, 422 for an
   *     adapter its node refuses, 429 when the key's rate or budget is exhausted, 503 when no node
   *     takes it
   */
  public Opened open(ApiKeyPrincipal key, PrivateSessionRequest r) {
    Checked c = check(r);
    UUID slot = metered.acquireSlot(key);
    List<NodeTarget> claimed = new ArrayList<>();
    try {
      ServedVersion version = resolver.named(key, r.model());
      requirePrivatePriceWithinCap(key, version);
      UUID id = UUID.randomUUID();
      OffsetDateTime started = OffsetDateTime.now(ZoneOffset.UTC);
      long releases =
          Math.multiplyExact(
              (long) c.maxPromptTokens() + c.maxTokens(), (long) version.releasesPerToken());
      claimed.addAll(
          dispatcher.candidates(version.fleetId(), version.baseModel(), version.adapterId()));
      if (claimed.isEmpty()) {
        throw MeteredCompletions.noCapacity(version);
      }
      QuarkusTransaction.requiringNew()
          .run(
              () ->
                  admission.admit(
                      id.toString(),
                      new GatewayRequests.Context(
                          key.organisationId(),
                          key.keyId(),
                          version.adapterId(),
                          version.version(),
                          null,
                          started,
                          false,
                          new GatewayRequests.Limits(c.maxPromptTokens(), c.maxTokens(), -1)),
                      claimed.getFirst().id(),
                      releases,
                      RequestMode.PRIVATE));
      return openOnNode(key, slot, r, c, version, id, started, claimed);
    } catch (RuntimeException e) {
      claimed.forEach(dispatcher::release);
      metered.releaseSlot(slot);
      throw e;
    }
  }

  /**
   * A creator's private price (ADR 0017) must be within the key's cap too, as the hosted one is.
   */
  private void requirePrivatePriceWithinCap(ApiKeyPrincipal key, ServedVersion version) {
    if (key.maxPrice() == null) {
      return;
    }
    versions
        .privatePriceNow(version.adapterId(), version.version())
        .filter(p -> !key.maxPrice().allows(version.currency(), p[0], p[1]))
        .ifPresent(
            p -> {
              throw new ApiProblem(
                      ProblemKind.PRICE_ABOVE_CAP,
                      "model '"
                          + version.adapterId()
                          + "' costs "
                          + version.currency()
                          + " "
                          + p[0]
                          + " / "
                          + p[1]
                          + " micro-units per 1k prompt / completion tokens in private mode; this"
                          + " API key pays at most "
                          + key.maxPrice())
                  .withParam("model");
            });
  }

  private record Checked(int maxTokens, int maxPromptTokens) {}

  private static Checked check(PrivateSessionRequest r) {
    if (r == null) {
      throw ProblemTypes.validation("a JSON body is required");
    }
    if (r.model() == null || r.model().isBlank()) {
      throw ProblemTypes.validation("model is required").withParam("model");
    }
    if (r.model().equals("auto")) {
      throw ProblemTypes.validation(
              "a private session names its adapter: route on the client over GET"
                  + " /v1/routing/candidates (the marketplace never sees the prompt)")
          .withParam("model");
    }
    int maxTokens = r.maxTokens() == null ? 256 : r.maxTokens();
    if (maxTokens < 1 || maxTokens > PrivateSessionRequest.MAX_TOKENS) {
      throw ProblemTypes.validation(
              "max_tokens must be in [1, " + PrivateSessionRequest.MAX_TOKENS + "]")
          .withParam("max_tokens");
    }
    int maxPrompt =
        r.maxPromptTokens() == null
            ? PrivateSessionRequest.DEFAULT_MAX_PROMPT_TOKENS
            : r.maxPromptTokens();
    if (maxPrompt < 1 || maxPrompt > 0xFFFF) {
      throw ProblemTypes.validation("max_prompt_tokens must be in [1, 65535]")
          .withParam("max_prompt_tokens");
    }
    List<String> keys = r.publicKeys();
    if (keys == null
        || keys.isEmpty()
        || keys.size() > PrivateSessionRequest.MAX_PUBLIC_KEYS
        || keys.stream().mapToLong(k -> k == null ? 0 : k.length()).sum()
            > PrivateSessionRequest.MAX_PUBLIC_KEY_CHARS) {
      throw ProblemTypes.validation(
              "public_keys is required: 1 to "
                  + PrivateSessionRequest.MAX_PUBLIC_KEYS
                  + " keys, at most "
                  + PrivateSessionRequest.MAX_PUBLIC_KEY_CHARS
                  + " base64 characters in all")
          .withParam("public_keys");
    }
    try {
      for (String k : keys) {
        if (k == null || k.isEmpty()) {
          throw new IllegalArgumentException("empty");
        }
        Base64.getDecoder().decode(k);
      }
    } catch (IllegalArgumentException e) {
      throw ProblemTypes.validation("public_keys must be base64").withParam("public_keys");
    }
    return new Checked(maxTokens, maxPrompt);
  }

  private Opened openOnNode(
      ApiKeyPrincipal key,
      UUID slot,
      PrivateSessionRequest r,
      Checked c,
      ServedVersion version,
      UUID id,
      OffsetDateTime started,
      List<NodeTarget> claimed) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("session_id", id.toString());
    body.put("adapter", version.adapterId() + "@" + version.version());
    body.put("public_keys", r.publicKeys());
    body.put("max_prompt_tokens", c.maxPromptTokens());
    body.put("max_decode_steps", c.maxTokens() - 1);
    if (r.dpNoiseMultiplier() != null) {
      body.put("dp_noise_multiplier", r.dpNoiseMultiplier());
    }
    body.put("max_frame_bytes", gateway.maxFrameBytes());
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    for (int i = 0; i < claimed.size(); i++) {
      NodeTarget target = claimed.get(i);
      try {
        if (i > 0) {
          requests.assign(id.toString(), target.id());
        }
        JsonNode answer = link.open(target, bytes);
        int chunk = answer.path("prefill_chunk_tokens").asInt(0);
        if (chunk < FrameOrder.MIN_PREFILL_CHUNK || chunk > 0xFFFF) {
          throw new IOException("the node's prefill chunk " + chunk + " is out of range");
        }
        for (NodeTarget other : claimed) {
          if (other != target) {
            dispatcher.release(other);
          }
        }
        claimed.clear();
        live.put(
            id,
            new LiveSession(
                id,
                key,
                slot,
                version,
                target,
                started,
                new FrameOrder(c.maxPromptTokens(), c.maxTokens() - 1, chunk)));
        return new Opened(
            id,
            version,
            answer,
            versions.baseModelConfigSha256(version.adapterId(), version.version()).orElse(null));
      } catch (NodeRefusal e) {
        if (e.adapterRefused() || e.status() == 400) {
          Log.warnf("private session %s: node %s refused it: %s", id, target.name(), e);
          unserved(id, e.adapterRefused() ? RequestOutcome.REJECTED : RequestOutcome.NO_NODE);
          throw e.adapterRefused()
              ? new ApiProblem(
                  ProblemKind.ADAPTER_INCOMPATIBLE,
                  "the node refused adapter "
                      + version.adapterId()
                      + "@"
                      + version.version()
                      + " for a private session (it needs a DP policy and must fit the node's"
                      + " model); nothing was billed")
              : ProblemTypes.validation(
                  "the node refused the session's public key or limits; nothing was billed");
        }
        Log.warnf("private session %s: node %s failed to open it: %s", id, target.name(), e);
      } catch (IOException | RuntimeException e) {
        Log.warnf("private session %s: node %s failed to open it: %s", id, target.name(), e);
      }
    }
    unserved(id, RequestOutcome.NO_NODE);
    throw MeteredCompletions.noNodeAnswered(
        "no node serving " + version.baseModel() + " opened the session; nothing was billed");
  }

  private void unserved(UUID id, RequestOutcome outcome) {
    settlement.settle(
        new PrivateSettlement.Served(id, null, null, null, null, null, 0, 0), outcome);
  }

  /**
   * Relays one client frame and returns the node's answer.
   *
   * @throws ApiProblem 404 for a session this key does not have (or that ended), 429 while another
   *     frame of it is in flight, 400 for a frame that is malformed or out of order (the session
   *     goes on), 502 when the node failed (the session ended, billed for what it served)
   */
  public byte[] frame(ApiKeyPrincipal key, String sessionId, byte[] bytes) {
    LiveSession s = session(key, sessionId);
    if (!s.lock.tryLock()) {
      throw new ApiProblem(
          ProblemKind.RATE_LIMITED, "a frame of this session is in flight; send one at a time", 1);
    }
    try {
      if (s.ended) {
        throw ended(sessionId);
      }
      s.touch();
      FrameLimits limits = limits();
      FrameOrder next = s.order.copy();
      SessionFrame frame;
      try {
        frame = SessionFrame.read(bytes, limits);
        next.accept(frame);
      } catch (MalformedFrameException e) {
        throw ProblemTypes.validation("frame refused: " + e.getMessage());
      }
      byte[] answer;
      try {
        answer = link.frame(s.node, s.id, bytes, limits.maxFrameBytes());
        SessionFrame read = SessionFrame.read(answer, limits);
        if (read.kind() != FrameKind.ANSWER || read.sequence() != frame.sequence()) {
          throw new IOException("the node's answer does not answer frame " + frame.sequence());
        }
      } catch (NodeRefusal e) {
        if (e.status() == 400) {
          Log.infof("private session %s: node refused frame %d: %s", s.id, frame.sequence(), e);
          throw ProblemTypes.validation(
              "the node refused frame "
                  + frame.sequence()
                  + " (a ciphertext that does not decode under the session's parameters, or the"
                  + " wrong number of them); the session goes on");
        }
        throw nodeFailed(s, e);
      } catch (IOException | MalformedFrameException e) {
        throw nodeFailed(s, e);
      }
      boolean newStep = next.completionTokens() != s.order.completionTokens();
      s.order = next;
      if (newStep) {
        requests.served(s.id.toString(), next.promptTokens(), next.completionTokens());
      }
      s.touch();
      return answer;
    } finally {
      s.lock.unlock();
    }
  }

  /**
   * Ends a session at the client's request and bills it.
   *
   * @throws ApiProblem 404 for a session this key does not have
   */
  public SessionBill close(ApiKeyPrincipal key, String sessionId) {
    LiveSession s = session(key, sessionId);
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

  /** Ends sessions idle past {@code tensafe.gateway.private-idle-timeout}; returns how many. */
  int endIdle() {
    long idle = gateway.privateIdleTimeout().toNanos();
    int ended = 0;
    for (LiveSession s : live.values()) {
      if (s.idleNanos() > idle && s.lock.tryLock()) {
        try {
          if (!s.ended) {
            end(s, RequestOutcome.CLIENT_GONE);
            ended++;
          }
        } finally {
          s.lock.unlock();
        }
      }
    }
    return ended;
  }

  /** Sessions relayed by this instance now. */
  public int open() {
    return live.size();
  }

  /** Bills and ends {@code s}; the caller holds its lock. */
  private SessionBill end(LiveSession s, RequestOutcome outcome) {
    s.ended = true;
    live.remove(s.id);
    try {
      return settlement.settle(
          new PrivateSettlement.Served(
              s.id,
              s.key.organisationId(),
              s.key.keyId(),
              s.version.adapterId(),
              s.version.version(),
              s.startedAt,
              s.order.promptTokens(),
              s.order.completionTokens()),
          outcome);
    } finally {
      dispatcher.release(s.node);
      metered.releaseSlot(s.keySlot);
      try {
        link.close(s.node, s.id);
      } catch (IOException e) {
        Log.debugf("private session %s: closing it on node %s: %s", s.id, s.node.name(), e);
      }
    }
  }

  private ApiProblem nodeFailed(LiveSession s, Exception e) {
    Log.warnf("private session %s: node %s failed: %s", s.id, s.node.name(), e);
    if (e instanceof IOException && !(e instanceof NodeRefusal)) {
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

  private FrameLimits limits() {
    int max = (int) Math.min(Integer.MAX_VALUE - 8, gateway.maxFrameBytes());
    return new FrameLimits(max, 0xFFFF, max);
  }

  private LiveSession session(ApiKeyPrincipal key, String sessionId) {
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

  private static ApiProblem ended(String sessionId) {
    return ProblemTypes.notFound("an open private session " + sessionId);
  }
}
