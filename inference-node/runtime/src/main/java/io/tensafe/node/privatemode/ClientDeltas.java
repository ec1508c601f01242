package io.tensafe.node.privatemode;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.kernels.helora.PackedOutputs;
import io.tensafe.kernels.helora.PrivateClient;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerCodec;
import io.tensafe.kernels.protocol.ShareAnswer;
import io.tensafe.kernels.protocol.SwitchedAnswer;
import io.tensafe.kernels.rlwe.RlweCodec;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.DeltaArrays;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The client's half of a private session (ADR 0017): the decoder's deltas, each computed by the
 * node under this client's keys (one per ring, {@link ClientKeys}) in two rounds per site group,
 * through a {@link FrameExchange}. Only ciphertexts under the client's secret key leave it; it
 * decrypts only its shares and the final deltas. Inputs are clipped to the policy's L2 norm C
 * before encryption, at the session's fixed scales, each c1 from the node's seed for its frame and
 * position ({@link SessionTerms}, ADR 0025).
 *
 * <p>One sequence drives an instance, as the decoder calls it. A failed exchange throws {@link
 * UncheckedIOException}; the session cannot continue after one (its sequence has moved on).
 */
public final class ClientDeltas implements AdapterDeltas {
  private final ClientKeys keys;
  private final SitePlan plan;
  private final Map<String, Integer> groupOf;
  private final FrameExchange exchange;
  private final SessionTerms terms;
  private final FrameAuth auth;
  private final java.util.Random nonces;
  private final Map<Integer, FrameLimits> limits = new java.util.HashMap<>();
  private long sequence;
  private long step = -1;
  private int tokens;

  /** The tokens this step's frames carry: {@link #tokens}, or more for a padded prefill's last. */
  private int frameTokens;

  /** The prompt's tokens, its padded count and the session's prefill chunk; 0 for no padding. */
  private int promptTokens;

  private int paddedPromptTokens;
  private int prefillChunk;
  private int prefillSeen;

  /** The prompt tokens the prefill's frames carried, padding included. */
  private int promptTokensRun;

  /** Padding the prefill's last step could not hold: sent as zero-row steps before decoding. */
  private int paddingLeft;

  private int lastGroup = -1;
  private final ExchangeCounts counts = new ExchangeCounts();

  /** Per layer and kind of expert group ({@link SitePlan#inputKind}), the plan's groups. */
  private final Map<Long, List<Integer>> expertGroups = new java.util.HashMap<>();

  /** This layer's routed experts' tokens, from its gate/up call: the down call's rows. */
  private final Map<Integer, long[]> routedTokens = new java.util.HashMap<>();

  /**
   * @param terms the session's public terms from its opening: scales (the policy's clip norm C and
   *     the signed weight bound) and the node's upload seed key
   * @param auth the frames' keys this client agreed with the serving fleet ({@link
   *     FrameAuth#offer}): every frame is sealed, every answer verified before it is read
   */
  public ClientDeltas(
      ClientKeys keys, SitePlan plan, FrameExchange exchange, SessionTerms terms, FrameAuth auth) {
    this(keys, plan, exchange, terms, auth, new java.security.SecureRandom());
  }

  /**
   * As the public constructor, with frame nonces from {@code nonces}: a predictable source gives
   * the node every upload's c1 before it answers, the hole ADR 0037 closes (for the test that shows
   * the attack works then and not otherwise).
   */
  static ClientDeltas withNoncesForTesting(
      ClientKeys keys,
      SitePlan plan,
      FrameExchange exchange,
      SessionTerms terms,
      FrameAuth auth,
      java.util.Random nonces) {
    return new ClientDeltas(keys, plan, exchange, terms, auth, nonces);
  }

  private ClientDeltas(
      ClientKeys keys,
      SitePlan plan,
      FrameExchange exchange,
      SessionTerms terms,
      FrameAuth auth,
      java.util.Random nonces) {
    // Bound to the opening as received: a relay that altered it breaks the first frame.
    this.auth =
        java.util.Objects.requireNonNull(auth, "frames are authenticated")
            .bind(terms.opening(plan));
    this.nonces = nonces;
    if (!keys.rings().equals(plan.rings())) {
      throw new IllegalArgumentException("the client's keys are not for this plan's rings");
    }
    this.keys = keys;
    this.plan = plan;
    this.groupOf = plan.groupIndex();
    for (int g = 0; g < plan.groups().size(); g++) {
      String path = plan.groups().get(g).sites().getFirst().path();
      if (SitePlan.expertOf(path) >= 0) {
        expertGroups.computeIfAbsent(SitePlan.inputKind(path), k -> new ArrayList<>()).add(g);
      }
    }
    this.exchange = exchange;
    this.terms = terms;
    for (int logN : plan.rings()) {
      limits.put(logN, PrivateLimits.answers(SitePlan.ring(logN)));
    }
  }

  /**
   * Pads the prefill with zero rows, so the frames show exactly {@code paddedTokens} prompt tokens
   * (the opening's {@code max_prompt_tokens}) in steps of {@code prefillChunk} but the last,
   * instead of the prompt's own count: the node and the relay then learn the prompt's length only
   * to its bucket, and the prefill ends where the session's {@code FrameOrder} expects it, at the
   * bucket (ADR 0037). The prompt's last step is filled up to a chunk; what it cannot hold goes in
   * zero-row steps before the first decode step. The padded rows are run and billed like the
   * prompt's; their deltas are dropped. Call before the prefill.
   *
   * @param promptTokens the prompt's tokens, ≥ 1
   * @param paddedTokens the bucket's, ≥ promptTokens
   * @param prefillChunk the session's prefill chunk (every prefill step's most tokens), ≥ 1
   */
  public void padPrompt(int promptTokens, int paddedTokens, int prefillChunk) {
    if (step >= 0 || promptTokens < 1 || paddedTokens < promptTokens || prefillChunk < 1) {
      throw new IllegalArgumentException("pad a prompt of ≥ 1 tokens to ≥ its length, first");
    }
    this.promptTokens = promptTokens;
    this.paddedPromptTokens = paddedTokens;
    this.prefillChunk = prefillChunk;
  }

  /**
   * The prompt tokens the prefill's frames carried, padding included: what the marketplace counts
   * and bills as the prompt ({@link #padPrompt}; 0 before it or without it).
   */
  public int promptTokensRun() {
    return promptTokensRun;
  }

  /** Frames, round trips, bytes and time so far. */
  public ExchangeCounts counts() {
    return counts;
  }

  @Override
  public void beginStep(int tokens) {
    sendPadding();
    step++;
    this.tokens = tokens;
    this.frameTokens = tokens;
    if (prefillSeen < promptTokens) {
      prefillSeen += tokens;
      if (prefillSeen >= promptTokens) {
        int padding = paddedPromptTokens - promptTokens;
        frameTokens = Math.min(prefillChunk, tokens + padding);
        paddingLeft = tokens + padding - frameTokens;
      }
      promptTokensRun += frameTokens;
    }
    lastGroup = -1;
  }

  /**
   * The padding the prompt's last step could not hold, in steps of zero rows through every group of
   * the plan (a chunk each, the last shorter or ending at the bucket).
   */
  private void sendPadding() {
    while (paddingLeft > 0) {
      int rows = Math.min(prefillChunk, paddingLeft);
      paddingLeft -= rows;
      step++;
      tokens = rows;
      frameTokens = rows;
      promptTokensRun += rows;
      lastGroup = -1;
      for (int g = 0; g < plan.groups().size(); g++) {
        visit(g, new double[rows][plan.groups().get(g).sites().getFirst().inputWidth()]);
      }
    }
  }

  @Override
  public NDArray[] deltas(List<String> modules, NDArray input, NDManager manager) {
    NDArray[] out = new NDArray[modules.size()];
    // Modules the plan does not adapt get no delta; those it does must be one group.
    List<Integer> groups =
        modules.stream().map(groupOf::get).filter(java.util.Objects::nonNull).distinct().toList();
    if (groups.size() > 1) {
      throw new IllegalStateException("the plan splits " + modules + " over groups " + groups);
    }
    if (groups.isEmpty()) {
      return out;
    }
    int group = groups.getFirst();
    double[][] rows = DeltaArrays.rows(input);
    if (rows.length != tokens) {
      throw new IllegalStateException("the step has " + tokens + " tokens, input " + rows.length);
    }
    requireWidth(group, rows);
    double[][][] deltas = visit(group, rows);
    List<SitePlan.Site> sites = plan.groups().get(group).sites();
    for (int s = 0; s < sites.size(); s++) {
      out[modules.indexOf(sites.get(s).path())] = DeltaArrays.array(deltas[s], manager);
    }
    return out;
  }

  /**
   * A mixture-of-experts layer's routed experts (ADR 0034): the node is sent every expert group the
   * plan has for this layer and kind, in the plan's order, each over every token of the step,
   * whichever experts the tokens chose; the client keeps the rows of the routed ones. Gate and up
   * read the layer's input for every token; a down reads its expert's activation for the tokens
   * routed to it (the rows of the gate/up call before it) and zeros for the others.
   */
  @Override
  public NDArray[][] groupedDeltas(List<RowGroup> routed, NDArray input, NDManager manager) {
    if (routed.isEmpty() || SitePlan.expertOf(routed.getFirst().modules().getFirst()) < 0) {
      return AdapterDeltas.super.groupedDeltas(routed, input, manager);
    }
    long kind = SitePlan.inputKind(routed.getFirst().modules().getFirst());
    boolean gateUp = routed.getFirst().modules().stream().noneMatch(m -> m.endsWith("down_proj"));
    double[][] given = DeltaArrays.rows(input);
    if (gateUp) {
      if (given.length != tokens) {
        throw new IllegalStateException(
            "the step has " + tokens + " tokens, input " + given.length);
      }
      routedTokens.clear();
      for (RowGroup g : routed) {
        routedTokens.put(SitePlan.expertOf(g.modules().getFirst()), g.rows());
      }
    }
    Map<Integer, RowGroup> byExpert = new java.util.HashMap<>();
    for (RowGroup g : routed) {
      byExpert.put(SitePlan.expertOf(g.modules().getFirst()), g);
    }
    List<Integer> groups = expertGroups.getOrDefault(kind, List.of());
    // Every group's width and every row's values checked before any frame: a refusal never
    // depends on the routing (a non-finite activation would otherwise stop the client at its own
    // expert's down group).
    for (int group : groups) {
      requireWidth(group, given);
    }
    for (double[] row : given) {
      for (double v : row) {
        if (!Double.isFinite(v)) {
          throw new IllegalStateException("the decoder's input to " + kind + " is not finite");
        }
      }
    }
    Map<String, double[][]> deltaOf = new java.util.HashMap<>();
    for (int group : groups) {
      List<SitePlan.Site> sites = plan.groups().get(group).sites();
      SitePlan.Site first = sites.getFirst();
      double[][] rows =
          gateUp
              ? given
              : activations(byExpert, given, SitePlan.expertOf(first.path()), first.inputWidth());
      double[][][] deltas = visit(group, rows);
      for (int s = 0; s < sites.size(); s++) {
        deltaOf.put(sites.get(s).path(), deltas[s]);
      }
    }
    NDArray[][] out = new NDArray[routed.size()][];
    for (int k = 0; k < routed.size(); k++) {
      RowGroup g = routed.get(k);
      long[] at = routedTokensOf(SitePlan.expertOf(g.modules().getFirst()));
      out[k] = new NDArray[g.modules().size()];
      for (int m = 0; m < g.modules().size(); m++) {
        double[][] all = deltaOf.get(g.modules().get(m));
        if (all != null) {
          double[][] mine = new double[at.length][];
          for (int r = 0; r < at.length; r++) {
            mine[r] = all[(int) at[r]];
          }
          out[k][m] = DeltaArrays.array(mine, manager);
        }
      }
    }
    return out;
  }

  /** The tokens of this step routed to {@code expert}, as the layer's gate/up call gave them. */
  private long[] routedTokensOf(int expert) {
    long[] at = routedTokens.get(expert);
    if (at == null) {
      throw new IllegalStateException("expert " + expert + " was not routed at this layer");
    }
    return at;
  }

  /**
   * A down group's input: for each token of the step, its expert's activation if the token was
   * routed to it, else zeros of the site's width.
   */
  private double[][] activations(
      Map<Integer, RowGroup> routed, double[][] stacked, int expert, int width) {
    double[][] rows = new double[tokens][];
    RowGroup g = routed.get(expert);
    if (g != null) {
      long[] at = routedTokensOf(expert);
      for (int r = 0; r < at.length; r++) {
        rows[(int) at[r]] = stacked[(int) g.rows()[r]];
      }
    }
    for (int t = 0; t < tokens; t++) {
      if (rows[t] == null) {
        rows[t] = new double[width];
      }
    }
    return rows;
  }

  /** Refuses {@code rows} unless each is as wide as {@code group}'s input. */
  private void requireWidth(int group, double[][] rows) {
    int width = plan.groups().get(group).sites().getFirst().inputWidth();
    for (double[] row : rows) {
      if (row.length != width) {
        throw new IllegalStateException(
            "group "
                + group
                + " reads inputs of width "
                + width
                + ", the decoder's are "
                + row.length);
      }
    }
  }

  /** Both rounds of {@code group}, which must come after the step's last: deltas[site][token]. */
  private double[][][] visit(int group, double[][] rows) {
    if (group <= lastGroup || step < 0) {
      throw new IllegalStateException("the decoder visited group " + group + " out of order");
    }
    lastGroup = group;
    double[][] padded = Arrays.copyOf(rows, frameTokens);
    for (int t = rows.length; t < frameTokens; t++) {
      padded[t] = new double[rows[0].length];
    }
    try {
      double[][][] deltas = rounds(group, plan.groups().get(group), padded);
      for (int s = 0; s < deltas.length; s++) {
        deltas[s] = Arrays.copyOf(deltas[s], rows.length);
      }
      return deltas;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Both rounds for one group: deltas[site][token][output]. */
  private double[][][] rounds(int group, SitePlan.Group g, double[][] rows) throws IOException {
    int sites = g.sites().size();
    int chunks = g.inputChunks();
    PrivateClient client = keys.ring(SitePlan.parameters(g).logN());
    Parameters p = client.parameters();
    int logN = p.logN();
    long firstSequence = sequence;
    byte[] firstNonce = nonce();
    List<byte[]> inputs =
        IntStream.range(0, rows.length)
            .parallel()
            .mapToObj(
                t ->
                    client.encryptSharedInput(
                        clipped(rows[t]),
                        terms.scales(),
                        terms.seeds(logN, firstNonce, firstSequence, t * chunks, chunks)))
            .flatMap(List::stream)
            .map(RlweCodec::toUploadBytes)
            .toList();
    List<byte[]> first =
        send(FrameKind.ROUND_ONE, group, firstNonce, inputs, expected(g, true, p), p);
    long secondSequence = sequence;
    // Drawn only now, after round one's answers are in: the node cannot know the c1 its shares are
    // re-encrypted under when it writes those answers (ADR 0037).
    byte[] secondNonce = nonce();
    int[] from = new int[sites * frameTokens + 1];
    for (int k = 0; k < sites * frameTokens; k++) {
      from[k + 1] = from[k] + g.shareChunks(g.sites().get(k / frameTokens));
    }
    List<byte[]> shares =
        IntStream.range(0, sites * frameTokens)
            .parallel()
            .<List<byte[]>>mapToObj(
                k -> {
                  PackedOutputs a = PrivateLimits.aOutputs(g, g.sites().get(k / frameTokens), p);
                  List<ShareAnswer> answers =
                      decoded(
                          slice(first, g, true, k, p),
                          i -> i == a.answers() ? 1 : a.outputs(i),
                          p,
                          AnswerCodec::shareFromBytes);
                  return client
                      .encryptShares(
                          client.decryptShares(answers, a),
                          terms.scales(),
                          terms.seeds(
                              logN, secondNonce, secondSequence, from[k], from[k + 1] - from[k]))
                      .stream()
                      .map(RlweCodec::toUploadBytes)
                      .toList();
                })
            .flatMap(List::stream)
            .toList();
    List<byte[]> second =
        send(FrameKind.ROUND_TWO, group, secondNonce, shares, expected(g, false, p), p);
    double[][][] deltas = new double[sites][frameTokens][];
    IntStream.range(0, sites * frameTokens)
        .parallel()
        .forEach(
            k -> {
              PackedOutputs b = PrivateLimits.bOutputs(g, g.sites().get(k / frameTokens), p);
              List<SwitchedAnswer> answers =
                  decoded(
                      slice(second, g, false, k, p), b::outputs, p, AnswerCodec::switchedFromBytes);
              requireSessionScale(answers);
              deltas[k / frameTokens][k % frameTokens] = client.decryptDeltas(answers, b);
            });
    return deltas;
  }

  /**
   * Refuses answers whose scale is not the session's delta scale, bit for bit: the node's word on
   * the scale would set how large the client's deltas decode (a tiny one gives infinities), and
   * through the decoder whether a later input can be encrypted at all, for routed experts only.
   * With the session's scale every delta decodes within 8·C·W_A·W_B (ADR 0034).
   */
  private void requireSessionScale(List<SwitchedAnswer> answers) {
    double expected = terms.scales().delta();
    for (SwitchedAnswer a : answers) {
      if (Double.doubleToLongBits(a.scale()) != Double.doubleToLongBits(expected)) {
        throw new UncheckedIOException(
            new IOException(
                "the node's answer has scale " + a.scale() + ", not the session's " + expected));
      }
    }
  }

  /** Reads one encoded answer expected to carry {@code outputs} outputs. */
  private interface AnswerReader<T> {
    T read(byte[] bytes, Parameters p, int outputs) throws MalformedEncodingException;
  }

  /**
   * The answers for one site and token, answer i holding {@code outputs(i)} outputs. One that does
   * not decode fails the exchange ({@link UncheckedIOException}).
   */
  private static <T> List<T> decoded(
      List<byte[]> encoded,
      java.util.function.IntUnaryOperator outputsOf,
      Parameters p,
      AnswerReader<T> reader) {
    List<T> out = new ArrayList<>(encoded.size());
    for (int i = 0; i < encoded.size(); i++) {
      int outputs = outputsOf.applyAsInt(i);
      try {
        out.add(reader.read(encoded.get(i), p, outputs));
      } catch (MalformedEncodingException e) {
        throw new UncheckedIOException(
            new IOException("the node sent a malformed answer: " + e.getMessage(), e));
      }
    }
    return out;
  }

  /** {@code x} scaled down to the clip norm C if above it: every input is, before encryption. */
  private double[] clipped(double[] x) {
    double clipNorm = terms.scales().clipNorm();
    double norm = 0;
    for (double v : x) {
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    if (norm <= clipNorm) {
      return x;
    }
    double[] out = x.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] = Math.clamp(out[i] * (clipNorm / norm), -clipNorm, clipNorm);
    }
    return out;
  }

  /** The answer's ciphertexts for site {@code k / frameTokens}, token {@code k % frameTokens}. */
  private List<byte[]> slice(
      List<byte[]> answer, SitePlan.Group g, boolean a, int k, Parameters p) {
    int from = 0;
    for (int s = 0; s < k / frameTokens; s++) {
      from += frameTokens * perInput(g, g.sites().get(s), a, p);
    }
    int each = perInput(g, g.sites().get(k / frameTokens), a, p);
    from += (k % frameTokens) * each;
    return answer.subList(from, from + each);
  }

  private int expected(SitePlan.Group g, boolean a, Parameters p) {
    int total = 0;
    for (SitePlan.Site s : g.sites()) {
      total += frameTokens * perInput(g, s, a, p);
    }
    return total;
  }

  private static int perInput(SitePlan.Group g, SitePlan.Site s, boolean a, Parameters p) {
    return a ? PrivateLimits.roundOneAnswers(g, s) : PrivateLimits.roundTwoAnswers(g, s);
  }

  /** A fresh frame nonce. */
  private byte[] nonce() {
    byte[] nonce = new byte[SessionFrame.NONCE_BYTES];
    nonces.nextBytes(nonce);
    return nonce;
  }

  private List<byte[]> send(
      FrameKind kind, int group, byte[] nonce, List<byte[]> ciphertexts, int expected, Parameters p)
      throws IOException {
    SessionFrame frame =
        new SessionFrame(kind, sequence, step, group, frameTokens, nonce, ciphertexts);
    byte[] bytes = auth.seal(frame.toBytes(), FrameAuth.Direction.CLIENT_TO_NODE);
    // Moves on before the exchange: a failed one never leaves a sequence (and so its c1 seeds) to
    // be used again for other inputs.
    sequence++;
    long start = System.nanoTime();
    byte[] answerBytes = exchange.exchange(bytes);
    counts.exchanged(bytes.length, answerBytes.length, System.nanoTime() - start);
    SessionFrame answer;
    try {
      auth.verify(answerBytes, FrameAuth.Direction.NODE_TO_CLIENT);
      answer = SessionFrame.read(answerBytes, limits.get(p.logN()));
    } catch (MalformedFrameException e) {
      throw new IOException("the node's answer is malformed: " + e.getMessage(), e);
    }
    if (answer.kind() != FrameKind.ANSWER
        || answer.sequence() != frame.sequence()
        || answer.step() != frame.step()
        || answer.group() != frame.group()
        || answer.tokens() != frame.tokens()
        || answer.ciphertexts().size() != expected) {
      throw new IOException(
          "the node's answer does not match frame "
              + frame.sequence()
              + ": expected "
              + expected
              + " ciphertexts, got "
              + answer.ciphertexts().size());
    }
    return answer.ciphertexts();
  }
}
