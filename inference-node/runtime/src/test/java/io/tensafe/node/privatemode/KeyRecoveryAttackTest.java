package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.helora.ChunkedLayout;
import io.tensafe.kernels.helora.ClientSecrets;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerCodec;
import io.tensafe.kernels.protocol.DeviatingAnswers;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.rlwe.Automorphisms;
import io.tensafe.kernels.rlwe.DeviatingParty;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.SessionFrame;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 50's first attack, run against the real client (ADR 0037): a node that knows the c1 each
 * round-two upload will have crafts every round-one check answer's c1 as {@code X^(N−1−j)·c1′ + Σ_m
 * 64·3^m·X^(N−1−t_m)}, with j where the check share lands in its upload. The client decrypts the
 * check share as {@code (c1_ans·s)[N−1]} and re-encrypts it under c1′, so the upload's {@code
 * c0′[j] = Σ_m 64·3^m·s_(t_m) + e′}: 28 key coefficients in balanced ternary per answer, read in
 * one division. With the frame nonce drawn after round one's answers (the shipped client) the node
 * cannot know c1′, and what it reads agrees with the key no better than chance; with a nonce the
 * node can predict (the old protocol's c1, from its own key alone) it reads the key exactly.
 */
class KeyRecoveryAttackTest {
  private static final int STEPS = 5;

  /** Key coefficients read per crafted answer: 64·3^27 stays below half the first prime. */
  private static final int PER_ANSWER = 28;

  private static TinyAttention tiny;
  private static QwenDecoder decoder;
  private static LoraAdapter adapter;
  private static SitePlan plan;

  @BeforeAll
  static void load() throws Exception {
    tiny = TinyAttention.load();
    decoder = tiny.decoder();
    adapter = tiny.adapter();
    plan = tiny.plan();
  }

  @AfterAll
  static void close() throws Exception {
    tiny.close();
  }

  @Test
  void aNodeThatKnowsRoundTwosC1_readsTheClientsKey() throws Exception {
    Attack attack = run(true);
    assertTrue(attack.read.size() >= 400, "coefficients read: " + attack.read.size());
    assertEquals(attack.read.size(), attack.agreeing(), "every coefficient read is the key's");
  }

  @Test
  void withTheClientsFreshNonce_theNodeReadsNothingOfTheKey() throws Exception {
    Attack attack = run(false);
    assertTrue(attack.read.size() >= 400, "coefficients read: " + attack.read.size());
    double agreement = attack.agreeing() / (double) attack.read.size();
    // A uniform guess of a ternary coefficient agrees with probability 1/3.
    assertTrue(agreement < 0.45, "agreement " + agreement + " is above chance");
  }

  /** Decodes a prompt and a few tokens against the attacking node; what it read of the key. */
  private static Attack run(boolean predictableNonces) throws Exception {
    ClientKeys keys = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    InProcessNode node =
        InProcessNode.open(
            adapter, plan, keys, new InputPrivacy(4, 0), new FrameOrder(16, STEPS), true);
    long nonceSeed = 20261128L;
    Attack attack =
        new Attack(node, new Random(nonceSeed), ClientSecrets.of(keys.ring(plan.rings().get(0))));
    ClientDeltas client =
        predictableNonces
            ? ClientDeltas.withNoncesForTesting(
                keys, plan, attack, node.session().terms(), node.auth(), new Random(nonceSeed))
            : new ClientDeltas(keys, plan, attack, node.session().terms(), node.auth());
    long[] prompt = {9707, 11, 1246, 653, 3796, 369, 264};
    greedy(prompt, client);
    return attack;
  }

  private static void greedy(long[] prompt, AdapterDeltas deltas) {
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache, deltas);
      for (int i = 0; i < STEPS; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache, deltas);
      }
    }
  }

  /**
   * The deviating node: it answers through the honest session, replaces the first site's first
   * token's check answer in every round one, and reads the key from the round-two upload that
   * follows.
   */
  private static final class Attack implements FrameExchange {
    private final InProcessNode node;
    private final Random nonceGuess;
    private final long[] key;
    private final Map<Integer, Long> read = new HashMap<>();
    private int cursor;
    private List<Integer> targets = List.of();
    private int shareUpload;
    private int shareCoefficient;

    Attack(InProcessNode node, Random nonceGuess, long[] key) {
      this.node = node;
      this.nonceGuess = nonceGuess;
      this.key = key;
    }

    int agreeing() {
      int agree = 0;
      for (Map.Entry<Integer, Long> e : read.entrySet()) {
        agree += key[e.getKey()] == e.getValue() ? 1 : 0;
      }
      return agree;
    }

    @Override
    public byte[] exchange(byte[] bytes) throws IOException {
      try {
        SessionFrame frame = SessionFrame.read(bytes, InProcessNode.LIMITS);
        byte[] answer = node.exchange(bytes);
        SitePlan.Group g = plan.groups().get(frame.group());
        Parameters p = SitePlan.parameters(g);
        if (frame.kind() == FrameKind.ROUND_ONE) {
          byte[] guessed = new byte[SessionFrame.NONCE_BYTES];
          nonceGuess.nextBytes(guessed); // the client's round-one nonce
          nonceGuess.nextBytes(guessed); // and the guess of its round-two nonce
          return crafted(frame, answer, g, p, guessed);
        }
        readKey(frame, p);
        return answer;
      } catch (Exception e) {
        throw new IOException(e);
      }
    }

    /** Round one's answer with site 0, token 0's check answer crafted for {@code nonce}. */
    private byte[] crafted(
        SessionFrame frame, byte[] answerBytes, SitePlan.Group g, Parameters p, byte[] nonce)
        throws Exception {
      SessionFrame answer = SessionFrame.read(answerBytes, InProcessNode.LIMITS);
      SitePlan.Site site = g.sites().getFirst();
      int n = p.ringDegree();
      int rank = site.rank();
      int width = new ChunkedLayout(rank + 1, g.shareChunks(site), 1, n).chunkWidth();
      shareUpload = rank / width;
      shareCoefficient = rank % width;
      byte[] seed =
          node.session()
              .terms()
              .seeds(p.logN(), nonce, frame.sequence() + 1, shareUpload, 1)
              .getFirst();
      long[][] c1Prime = DeviatingParty.c1Coefficients(seed, p);
      targets = new ArrayList<>();
      for (int m = 0; m < PER_ANSWER; m++) {
        targets.add((cursor + m) % n);
      }
      cursor += PER_ANSWER;
      long[][] c1 = new long[2][];
      for (int l = 0; l < 2; l++) {
        Modulus q = p.moduli().get(l);
        c1[l] = Automorphisms.rotate(c1Prime[l], n - 1 - shareCoefficient, q);
        long weight = 64;
        for (int t : targets) {
          int at = n - 1 - t;
          c1[l][at] = q.add(c1[l][at], Long.remainderUnsigned(weight, q.value()));
          weight *= 3;
        }
      }
      int check = PrivateLimits.roundOneAnswers(g, site) - 1;
      double scale = AnswerCodec.shareFromBytes(answer.ciphertexts().get(check), p, 1).scale();
      List<byte[]> forged = new ArrayList<>(answer.ciphertexts());
      forged.set(check, DeviatingAnswers.shareAnswer(p, c1, new long[2][1], scale));
      byte[] out =
          new SessionFrame(
                  answer.kind(),
                  answer.sequence(),
                  answer.step(),
                  answer.group(),
                  answer.tokens(),
                  forged)
              .toBytes();
      return node.boundAuth().seal(out, FrameAuth.Direction.NODE_TO_CLIENT);
    }

    /** The key coefficients the check share's upload gives away, as the node decodes them. */
    private void readKey(SessionFrame frame, Parameters p) throws Exception {
      byte[] seed =
          node.session()
              .terms()
              .seeds(p.logN(), frame.nonce(), frame.sequence(), shareUpload, 1)
              .getFirst();
      double scale = node.session().terms().scales().share();
      long[][] c0 = DeviatingParty.uploadC0(frame.ciphertexts().get(shareUpload), p, seed, scale);
      long q = p.moduli().getFirst().value();
      long v = c0[0][shareCoefficient];
      long centred = v > q / 2 ? v - q : v;
      long x = Math.round(centred / 64.0);
      for (int t : targets) {
        long digit = Math.floorMod(x, 3);
        digit = digit == 2 ? -1 : digit;
        read.put(t, digit);
        x = (x - digit) / 3;
      }
    }
  }
}
