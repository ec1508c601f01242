package io.tensafe.node.tools.utility;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.node.privatemode.ClientDeltas;
import io.tensafe.node.privatemode.ClientKeys;
import io.tensafe.node.privatemode.FrameExchange;
import io.tensafe.node.privatemode.NodeSession;
import io.tensafe.node.privatemode.PackedSites;
import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.PreparedAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.List;
import java.util.function.Function;

/**
 * An adapter's deltas as each mode serves them under a policy, for {@link EffectMeter}: the
 * unprotected reference (no clip, no noise, no encryption), the plaintext path with the policy's
 * noise ({@code tgsp pack}'s figure: the same mechanism both modes apply), hosted mode (A·x under
 * CKKS with the node's key, the node's noise) and private mode (the two-round protocol with a fresh
 * client key, the node's noise in round two, a session per prompt, in this process).
 */
public final class ProtectedPaths {
  /** The modes {@code bench utility} measures. */
  public enum Mode {
    PLAINTEXT,
    HOSTED,
    PRIVATE
  }

  private final QwenDecoder decoder;
  private final LoraAdapter adapter;
  private final PreparedAdapter plain;
  private PreparedAdapter he;

  public ProtectedPaths(QwenDecoder decoder, LoraAdapter adapter) {
    this.decoder = decoder;
    this.adapter = adapter;
    this.plain = new PreparedAdapter(adapter, null);
  }

  /**
   * The adapter without any protection: no clip, no noise, deltas in the clear. What a policy's
   * clip and noise and a mode's encryption cost is measured against it.
   */
  public Function<long[], AdapterDeltas> noiseless() {
    return prompt -> new LoraPath(plain, LoraPath.Mode.PLAINTEXT, null);
  }

  /** The adapter under {@code policy} as {@code mode} serves it. */
  public Function<long[], AdapterDeltas> under(InputPrivacy policy, Mode mode) {
    return switch (mode) {
      case PLAINTEXT -> prompt -> new LoraPath(plain, LoraPath.Mode.PLAINTEXT, policy);
      case HOSTED -> {
        if (he == null) {
          he = new PreparedAdapter(adapter, new HeOperators(new CpuBackend()));
        }
        PreparedAdapter prepared = he;
        yield prompt -> new LoraPath(prepared, LoraPath.Mode.HE, policy);
      }
      case PRIVATE -> privately(policy, relay -> relay);
    };
  }

  /**
   * The adapter in private mode under {@code policy}, each prompt's session in this process with
   * its frames through {@code relay} (which may watch them: the JSON gaps benchmark times them).
   */
  public Function<long[], AdapterDeltas> privately(
      InputPrivacy policy, java.util.function.UnaryOperator<FrameExchange> relay) {
    SitePlan plan = SitePlan.of(adapter, decoder.adapterShape());
    SecureRandom random = new SecureRandom();
    ClientKeys keys = ClientKeys.generate(plan.rings(), random);
    PrivateBounds bounds = PrivateBounds.asPackWouldSign(adapter);
    PackedSites packed = PackedSites.pack(adapter, bounds, plan, policy);
    FrameLimits limits = new FrameLimits(1 << 30, 0xFFFF, 1 << 30);
    FleetKeyPair fleet = FleetKeyPair.generate("utility", random);
    return prompt -> {
      try {
        // Frame keys agreed as a client and a node of the fleet do (ADR 0037).
        FrameAuth.Offer offer =
            FrameAuth.offer(List.of(fleet.publicKey()), keys.publicKeys(), random);
        // The prompt's prefill, then any number of decode steps the measurement takes.
        NodeSession session =
            NodeSession.open(
                packed,
                bounds,
                keys.publicKeys(),
                FrameAuth.accept(fleet, offer.wrap(), keys.publicKeys()),
                policy,
                new FrameOrder(prompt.length, 1L << 16),
                random);
        FrameExchange node =
            frame -> {
              try {
                return session.answer(frame, limits);
              } catch (MalformedFrameException e) {
                throw new IOException("the node refused a frame: " + e.getMessage(), e);
              }
            };
        return new ClientDeltas(
            keys,
            plan,
            relay.apply(node),
            session.terms(),
            offer.byKeyId().get(fleet.publicKey().keyId()));
      } catch (MalformedEncodingException | MalformedFrameException e) {
        throw new IllegalStateException("the client's own keys or wrap did not open", e);
      }
    };
  }
}
