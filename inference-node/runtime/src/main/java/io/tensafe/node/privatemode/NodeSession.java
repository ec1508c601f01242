package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.SharedLoraNode;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerCodec;
import io.tensafe.kernels.protocol.SwitchedAnswer;
import io.tensafe.kernels.protocol.UploadSeeds;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.RlweCodec;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The node's half of one private session (ADR 0017): it adopts the adapter's packed sites ({@link
 * PackedSites}, shared read-only with the adapter's other sessions, ADR 0034) under the client's
 * keys, answers each client frame with {@link SharedLoraNode}'s rounds, and keeps round one's
 * shares until their round two. It sees only ciphertexts under the client's key.
 *
 * <p>Round one takes, token by token, the group's input in {@link SitePlan.Group#inputChunks}
 * chunks, and answers, site by site and token by token, one share answer per plaintext of A; round
 * two takes, site by site and token by token, the site's {@link SitePlan.Group#shareChunks} share
 * ciphertexts and answers one switched answer per plaintext of B the same way (ADR 0018). Every
 * upload is read at the session's fixed scale with its c1 expanded from the node's seed for its
 * frame and position ({@link SessionTerms}; ADR 0025). Every round two adds the adapter's DP noise,
 * N(0, σ²) per output with σ = z·2·L·C (z, C: the policy's multiplier and clip norm; L: the signed
 * bound on every site's spectral norm, {@link PrivateBounds}), so each noised site and token is a
 * release of zCDP ρ = 1/(2z²). Frames must follow {@link FrameOrder}. Thread-safe: frames are
 * answered one at a time.
 */
public final class NodeSession {

  private final SitePlan plan;
  private final Map<Integer, SharedLoraNode> nodes = new HashMap<>();
  private final List<SharedLoraNode> groupNodes = new ArrayList<>();
  private final List<List<SharedLoraNode.Site>> sites = new ArrayList<>();

  /** σ = z·2·L·C, the same for every site: its outputs' DP noise (ρ = 1/(2z²) per token). */
  private final double noiseStdDev;

  private final boolean noise;
  private final FrameOrder order;
  private final SessionTerms terms;
  private final FrameAuth auth;
  private SharedLoraNode.Share[][] shares;

  private NodeSession(
      PackedSites packed,
      PrivateBounds bounds,
      List<byte[]> publicKeys,
      FrameAuth auth,
      InputPrivacy policy,
      FrameOrder order,
      SecureRandom random,
      boolean noise)
      throws MalformedEncodingException {
    this.plan = packed.plan();
    java.util.Objects.requireNonNull(auth, "frames are authenticated");
    if (!packed.scales().equals(bounds.scales(policy))) {
      throw new IllegalArgumentException("the sites were packed at another policy's scales");
    }
    byte[] seedKey = new byte[UploadSeeds.KEY_BYTES];
    random.nextBytes(seedKey);
    this.terms = new SessionTerms(packed.scales(), new UploadSeeds(seedKey));
    // Bound to what this node's opening says: a relay that altered it breaks the first frame.
    this.auth = auth.bind(terms.opening(plan));
    if (publicKeys.size() != plan.rings().size()) {
      throw new MalformedEncodingException(
          "expected "
              + plan.rings().size()
              + " public keys, one per ring, got "
              + publicKeys.size());
    }
    java.util.Set<Integer> used = new java.util.HashSet<>();
    plan.groups().forEach(g -> used.add(SitePlan.parameters(g).logN()));
    for (int i = 0; i < publicKeys.size(); i++) {
      int logN = plan.rings().get(i);
      // Only the rings the adapter's groups compute in decode and keep their Galois keys (ADR
      // 0032: 12 MiB in memory per ring, per session); the others' public keys are still checked.
      if (used.contains(logN)) {
        RingKeys keys = RingKeys.fromBytes(publicKeys.get(i), SitePlan.ring(logN));
        nodes.put(logN, new SharedLoraNode(keys.publicKey(), keys.galoisKeys(), random));
      } else {
        RingKeys.publicKeyOf(publicKeys.get(i), SitePlan.ring(logN));
      }
    }
    this.noise = noise;
    this.noiseStdDev = policy.outputSigma(bounds.spectralBound());
    this.order = order;
    for (SitePlan.Group g : plan.groups()) {
      SharedLoraNode node = nodes.get(SitePlan.parameters(g).logN());
      groupNodes.add(node);
      List<SharedLoraNode.Site> adopted = new ArrayList<>();
      for (SitePlan.Site s : g.sites()) {
        adopted.add(node.adopt(packed.byPath().get(s.path())));
      }
      sites.add(adopted);
    }
  }

  /**
   * A session under the adapter's DP policy and signed bounds.
   *
   * @param publicKeys the client's keys as {@link RingKeys} encodes them (public and Galois keys),
   *     one per ring of {@link SitePlan#rings}, in that order
   * @param auth the frames' keys, agreed with the client through the fleet's key ({@link
   *     FrameAuth#accept}): every frame is verified before it is read, every answer sealed
   * @throws MalformedEncodingException if a key's bytes or parameters do not fit
   * @throws IllegalArgumentException if the adapter's weights exceed its signed bounds
   */
  public static NodeSession open(
      LoraAdapter adapter,
      PrivateBounds bounds,
      SitePlan plan,
      List<byte[]> publicKeys,
      FrameAuth auth,
      InputPrivacy policy,
      FrameOrder order,
      SecureRandom random)
      throws MalformedEncodingException {
    return open(
        PackedSites.pack(adapter, bounds, plan, policy),
        bounds,
        publicKeys,
        auth,
        policy,
        order,
        random);
  }

  /**
   * A session of sites packed before (for an earlier session of the same adapter, policy and plan:
   * {@link PackedSites}), under the adapter's DP policy and signed bounds.
   *
   * @throws MalformedEncodingException if a key's bytes or parameters do not fit
   * @throws IllegalArgumentException if the sites were packed at other scales than {@code bounds}
   *     and {@code policy} give
   */
  public static NodeSession open(
      PackedSites packed,
      PrivateBounds bounds,
      List<byte[]> publicKeys,
      FrameAuth auth,
      InputPrivacy policy,
      FrameOrder order,
      SecureRandom random)
      throws MalformedEncodingException {
    return new NodeSession(packed, bounds, publicKeys, auth, policy, order, random, true);
  }

  /** A session whose round two adds no DP noise: for tests that compare outputs exactly. */
  public static NodeSession openWithoutNoiseForTesting(
      LoraAdapter adapter,
      PrivateBounds bounds,
      SitePlan plan,
      List<byte[]> publicKeys,
      FrameAuth auth,
      InputPrivacy policy,
      FrameOrder order,
      SecureRandom random)
      throws MalformedEncodingException {
    return new NodeSession(
        PackedSites.pack(adapter, bounds, plan, policy),
        bounds,
        publicKeys,
        auth,
        policy,
        order,
        random,
        false);
  }

  /** The session's public terms, which the client needs to encrypt for it. */
  public SessionTerms terms() {
    return terms;
  }

  /** The plan the session serves. */
  public SitePlan plan() {
    return plan;
  }

  /**
   * Answers the session's next client frame: its tag checked before anything reads it, the answer
   * sealed for the client ({@link FrameAuth}).
   *
   * @throws MalformedFrameException if the frame's tag is not the client's, it breaks {@code
   *     limits}, is out of order, names no group of the plan, carries the wrong number of
   *     ciphertexts, or a ciphertext does not decode under the session's parameters; the session
   *     stays as it was
   */
  public synchronized byte[] answer(byte[] frame, FrameLimits limits)
      throws MalformedFrameException {
    auth.verify(frame, FrameAuth.Direction.CLIENT_TO_NODE);
    byte[] answer = answer(SessionFrame.read(frame, limits)).toBytes();
    return auth.seal(answer, FrameAuth.Direction.NODE_TO_CLIENT);
  }

  private SessionFrame answer(SessionFrame frame) throws MalformedFrameException {
    if (frame.group() >= plan.groups().size()) {
      throw new MalformedFrameException(
          "group " + frame.group() + " is not in the plan's " + plan.groups().size());
    }
    List<SharedLoraNode.Site> group = sites.get(frame.group());
    int tokens = frame.tokens();
    int chunks = plan.groups().get(frame.group()).inputChunks();
    if (frame.kind() == FrameKind.ROUND_ONE && frame.ciphertexts().size() != chunks * tokens) {
      throw new MalformedFrameException(
          "group " + frame.group() + " reads its input in " + chunks + " chunks per token");
    }
    SitePlan.Group planned = plan.groups().get(frame.group());
    int shareCiphertexts = planned.sites().stream().mapToInt(planned::shareChunks).sum();
    if (frame.kind() == FrameKind.ROUND_TWO
        && frame.ciphertexts().size() != shareCiphertexts * tokens) {
      throw new MalformedFrameException(
          "group " + frame.group() + " needs " + shareCiphertexts * tokens + " share ciphertexts");
    }
    SharedLoraNode node = groupNodes.get(frame.group());
    Parameters parameters = SitePlan.parameters(planned);
    double scale =
        frame.kind() == FrameKind.ROUND_ONE ? terms.scales().input() : terms.scales().share();
    List<Ciphertext> inputs = decode(frame, parameters, scale);
    order.accept(frame);
    return frame.kind() == FrameKind.ROUND_ONE
        ? frame.answer(roundOne(node, group, chunks, inputs))
        : frame.answer(roundTwo(node, group, tokens, inputs));
  }

  /** The frame's uploads, each at {@code scale} with its c1 from the session's seed. */
  private List<Ciphertext> decode(SessionFrame frame, Parameters parameters, double scale)
      throws MalformedFrameException {
    List<byte[]> encoded = frame.ciphertexts();
    List<byte[]> seeds =
        terms.seeds(parameters.logN(), frame.nonce(), frame.sequence(), 0, encoded.size());
    List<Ciphertext> out = new ArrayList<>(encoded.size());
    for (int i = 0; i < encoded.size(); i++) {
      try {
        out.add(RlweCodec.uploadFromBytes(encoded.get(i), parameters, seeds.get(i), scale));
      } catch (MalformedEncodingException e) {
        throw new MalformedFrameException("ciphertext " + i + ": " + e.getMessage());
      }
    }
    return out;
  }

  /**
   * Inputs: token by token, each token's chunks in order; answers: site by site, token by token.
   */
  private List<byte[]> roundOne(
      SharedLoraNode node, List<SharedLoraNode.Site> group, int chunks, List<Ciphertext> inputs) {
    int tokens = inputs.size() / chunks;
    shares = new SharedLoraNode.Share[group.size()][tokens];
    List<List<byte[]>> answers =
        IntStream.range(0, group.size() * tokens)
            .parallel()
            .mapToObj(
                k -> {
                  int t = k % tokens;
                  SharedLoraNode.RoundOne one =
                      node.roundOne(
                          group.get(k / tokens), inputs.subList(t * chunks, (t + 1) * chunks));
                  shares[k / tokens][t] = one.share();
                  return one.toClient().stream().map(AnswerCodec::toBytes).toList();
                })
            .toList();
    return answers.stream().flatMap(List::stream).toList();
  }

  private List<byte[]> roundTwo(
      SharedLoraNode node, List<SharedLoraNode.Site> group, int tokens, List<Ciphertext> inputs) {
    SharedLoraNode.Share[][] held = shares;
    shares = null;
    int[] from = new int[group.size() + 1];
    for (int s = 0; s < group.size(); s++) {
      from[s + 1] = from[s] + group.get(s).bChunks().chunks() * tokens;
    }
    List<List<byte[]>> answers =
        IntStream.range(0, group.size() * tokens)
            .parallel()
            .mapToObj(
                k -> {
                  SharedLoraNode.Site site = group.get(k / tokens);
                  SharedLoraNode.Share share = held[k / tokens][k % tokens];
                  int chunks = site.bChunks().chunks();
                  int first = from[k / tokens] + (k % tokens) * chunks;
                  List<Ciphertext> in = inputs.subList(first, first + chunks);
                  List<SwitchedAnswer> answer =
                      noise
                          ? node.roundTwo(site, share, in, noiseStdDev) // 0: policy without noise
                          : node.roundTwoWithoutNoiseForTesting(site, share, in);
                  return answer.stream().map(AnswerCodec::toBytes).toList();
                })
            .toList();
    return answers.stream().flatMap(List::stream).toList();
  }
}
