package io.tensafe.node.privatesession;

import io.quarkus.logging.Log;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.node.adapter.LoadedAdapter;
import io.tensafe.node.config.FleetKeyFile;
import io.tensafe.node.config.NodeConfig;
import io.tensafe.node.generation.ModelService;
import io.tensafe.node.generation.NodeProblem;
import io.tensafe.node.privatemode.NodeSession;
import io.tensafe.node.privatemode.PackedSites;
import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.privatemode.PrivateLimits;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The private sessions a node holds (ADR 0017): each the node's half of the protocol for one client
 * key and one adapter version, opened only by the marketplace (the dispatch token guards every
 * resource), at most {@code tensafe.node.private.max-sessions} at once, closed by the marketplace
 * or after {@code idle-timeout} without a frame. The node never sees the client's text: it meters
 * nothing here; the marketplace counts the frames it relays.
 */
@ApplicationScoped
public class PrivateSessions {
  @Inject ModelService model;
  @Inject NodeConfig config;

  private final SecureRandom random = new SecureRandom();
  private final Map<UUID, Held> sessions = new ConcurrentHashMap<>();

  /** Sessions whose opening is being read: they hold a slot (see {@link #reserve}). */
  private final java.util.Set<UUID> opening = ConcurrentHashMap.newKeySet();

  private record Held(NodeSession session, long openedNanos, long[] lastUsedNanos) {
    void touch() {
      synchronized (lastUsedNanos) {
        lastUsedNanos[0] = System.nanoTime();
      }
    }

    long idleNanos() {
      synchronized (lastUsedNanos) {
        return System.nanoTime() - lastUsedNanos[0];
      }
    }
  }

  /**
   * Opens a session.
   *
   * @throws NodeProblem 400 for a bad request or key, 404/422/503 as for generation, 409 when the
   *     id is taken, 503 when {@code max-sessions} are open
   */
  public SessionOpened open(SessionOpening r) {
    UUID id = sessionId(r.sessionId());
    if (r.adapter() == null || r.publicKeys() == null || r.publicKeys().size() > 8) {
      throw NodeProblem.validation("adapter and public_keys (at most 8) are required");
    }
    int maxPrompt = bounded("max_prompt_tokens", r.maxPromptTokens(), 1, 0xFFFF);
    int maxDecode = bounded("max_decode_steps", r.maxDecodeSteps(), 0, config.maxNewTokens() - 1);
    reserve(id);
    try {
      return open(id, r, maxPrompt, maxDecode);
    } finally {
      opening.remove(id);
    }
  }

  /**
   * Takes a slot for {@code id} before its keys are read (they hold megabytes: ADR 0032), so
   * concurrent openings cannot pass {@code max-sessions} together, and a taken id is refused before
   * any key is decoded.
   */
  private synchronized void reserve(UUID id) {
    evictIdle();
    if (sessions.containsKey(id) || opening.contains(id)) {
      throw NodeProblem.conflict("session " + id + " is open already");
    }
    if (sessions.size() + opening.size() >= config.privateSessions().maxSessions()) {
      throw NodeProblem.unavailable(
          "all " + config.privateSessions().maxSessions() + " private-session slots are busy", 5);
    }
    opening.add(id);
  }

  /**
   * Each loaded adapter's sites, packed once for all its sessions (ADR 0034: the plaintexts do not
   * depend on a client's key), dropped with the adapter. A first opening packs; openings of the
   * same adapter meanwhile wait for that packing rather than pack again.
   */
  private final Map<io.tensafe.node.runtime.PreparedAdapter, CompletableFuture<PackedSites>>
      packedSites = new java.util.WeakHashMap<>();

  /**
   * The adapter's sites packed for {@code plan} at the scales {@code policy} gives, once: a plan
   * and scales follow from the adapter and the served model alone, so a packing that does not fit
   * them (never, unless the model changed under the adapter) is made again, not kept.
   *
   * @throws IllegalArgumentException if the adapter's weights exceed its signed bounds
   */
  private PackedSites packed(
      LoadedAdapter adapter, PrivateBounds bounds, SitePlan plan, InputPrivacy policy) {
    CompletableFuture<PackedSites> mine = new CompletableFuture<>();
    CompletableFuture<PackedSites> held;
    synchronized (packedSites) {
      held = packedSites.get(adapter.prepared());
      if (held == null || held.isCompletedExceptionally()) {
        packedSites.put(adapter.prepared(), mine);
        held = mine;
      }
    }
    if (held == mine) {
      try {
        mine.complete(PackedSites.pack(adapter.prepared().adapter(), bounds, plan, policy));
      } catch (RuntimeException e) {
        mine.completeExceptionally(e);
        throw e;
      }
    }
    PackedSites packed;
    try {
      packed = held.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    return packed.plan().equals(plan) && packed.scales().equals(bounds.scales(policy))
        ? packed
        : PackedSites.pack(adapter.prepared().adapter(), bounds, plan, policy);
  }

  private SessionOpened open(UUID id, SessionOpening r, int maxPrompt, int maxDecode) {
    LoadedAdapter adapter = model.adapter(r.adapter());
    InputPrivacy policy =
        adapter
            .privacy()
            .orElseThrow(
                () ->
                    NodeProblem.rejectedAdapter(
                        "private mode needs the adapter's DP policy; "
                            + r.adapter()
                            + " has none"));
    if (r.dpNoiseMultiplier() != null) {
      if (!(r.dpNoiseMultiplier() >= policy.noiseMultiplier() && r.dpNoiseMultiplier() <= 1e6)) {
        throw NodeProblem.validation(
            "dp_noise_multiplier must be in [" + policy.noiseMultiplier() + ", 1e6]");
      }
      policy = new InputPrivacy(policy.clipNorm(), r.dpNoiseMultiplier());
    }
    PrivateBounds bounds =
        adapter
            .privateBounds()
            .orElseThrow(
                () ->
                    NodeProblem.rejectedAdapter(
                        "private mode needs the bounds a pack signs (tgsp pack of this release);"
                            + " the package of "
                            + r.adapter()
                            + " has none: repack it"));
    SitePlan plan;
    try {
      plan = SitePlan.of(adapter.prepared().adapter(), model.adapterShape());
    } catch (IllegalArgumentException e) {
      throw NodeProblem.rejectedAdapter(e.getMessage());
    }
    List<byte[]> keys = new java.util.ArrayList<>();
    try {
      for (String k : r.publicKeys()) {
        keys.add(Base64.getDecoder().decode(k == null ? "" : k));
      }
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation("public_keys must be base64");
    }
    long frameLimit =
        r.maxFrameBytes() == null
            ? maxFrameBytes()
            : Math.min(maxFrameBytes(), Math.max(0, r.maxFrameBytes()));
    int chunk;
    try {
      chunk = PrivateLimits.prefillChunk(plan, frameLimit);
    } catch (IllegalArgumentException e) {
      throw NodeProblem.rejectedAdapter(e.getMessage());
    }
    FrameAuth auth = frameAuth(r.frameKeyWrap(), keys);
    NodeSession session;
    try {
      session =
          NodeSession.open(
              packed(adapter, bounds, plan, policy),
              bounds,
              keys,
              auth,
              policy,
              new FrameOrder(maxPrompt, maxDecode, chunk),
              random);
    } catch (MalformedEncodingException e) {
      throw NodeProblem.validation(
          "public_keys do not fit this model's rings " + plan.rings() + ": " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw NodeProblem.rejectedAdapter(e.getMessage());
    }
    long now = System.nanoTime();
    if (sessions.putIfAbsent(id, new Held(session, now, new long[] {now})) != null) {
      throw NodeProblem.conflict("session " + id + " is open already");
    }
    Log.infof(
        "private session %s opened for %s (%d groups)", id, r.adapter(), plan.groups().size());
    return SessionOpened.of(
        id.toString(), plan, chunk, bounds, session.terms(), fleetKey().publicKey().keyId());
  }

  /** This node's fleet key, read once: it opens the client's frame-key wrap. */
  private volatile FleetKeyPair fleetKey;

  private FleetKeyPair fleetKey() {
    FleetKeyPair key = fleetKey;
    if (key == null) {
      try {
        key = FleetKeyFile.read(config);
      } catch (IllegalStateException e) {
        throw NodeProblem.rejectedAdapter(
            "private sessions need this node's fleet key (tensafe.node.fleet-key-file): "
                + e.getMessage());
      }
      fleetKey = key;
    }
    return key;
  }

  /**
   * The session's frame keys from the client's wrap, opened with this node's fleet key (ADR 0037):
   * a wrap without an entry for it, altered, or bound to other public keys is refused.
   */
  private FrameAuth frameAuth(String wrap, List<byte[]> keys) {
    if (wrap == null || wrap.isEmpty()) {
      throw NodeProblem.validation("frame_key_wrap is required (ADR 0037)");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(wrap);
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation("frame_key_wrap must be base64");
    }
    try {
      return FrameAuth.accept(fleetKey(), bytes, keys);
    } catch (MalformedFrameException e) {
      throw NodeProblem.validation(e.getMessage());
    }
  }

  /**
   * Answers one client frame of session {@code id}.
   *
   * @throws NodeProblem 404 for an unknown or closed session, 400 for a frame that is malformed,
   *     out of order or too large
   */
  public byte[] frame(UUID id, byte[] bytes) {
    Held held = sessions.get(id);
    if (held == null) {
      throw NodeProblem.notFound("no open private session " + id);
    }
    held.touch();
    try {
      return held.session().answer(bytes, limits());
    } catch (MalformedFrameException e) {
      throw NodeProblem.validation("frame refused: " + e.getMessage());
    } finally {
      held.touch();
    }
  }

  /** Closes session {@code id}; false if it was not open. */
  public boolean close(UUID id) {
    return sessions.remove(id) != null;
  }

  /** Sessions open now. */
  public int open() {
    return sessions.size();
  }

  /** The largest frame accepted, in bytes. */
  public int maxFrameBytes() {
    return Math.clamp(config.privateSessions().maxFrameMb(), 1, 1024) << 20;
  }

  private FrameLimits limits() {
    return new FrameLimits(maxFrameBytes(), 0xFFFF, maxFrameBytes());
  }

  private void evictIdle() {
    long idle = config.privateSessions().idleTimeout().toNanos();
    sessions
        .entrySet()
        .removeIf(
            e -> {
              boolean stale = e.getValue().idleNanos() > idle;
              if (stale) {
                Log.infof(
                    "private session %s closed after %s idle",
                    e.getKey(), config.privateSessions().idleTimeout());
              }
              return stale;
            });
  }

  private static UUID sessionId(String value) {
    try {
      return UUID.fromString(value == null ? "" : value);
    } catch (IllegalArgumentException e) {
      throw NodeProblem.validation("session_id must be a UUID");
    }
  }

  private static int bounded(String name, Integer value, int min, int max) {
    if (value == null || value < min || value > max) {
      throw NodeProblem.validation(name + " must be in [" + min + ", " + max + "], was " + value);
    }
    return value;
  }
}
