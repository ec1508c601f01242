package io.tensafe.node.privatemode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.ChatMessage;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.peft.LoraSite;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.Tensor;
import io.tensafe.tgsp.session.FrameOrder;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How many tokens a modified private-mode client needs to rebuild an adapter site (issue 49).
 * Private mode hands the client each adapted site's delta {@code s·B·A·x} for the inputs x its
 * decoder produces; this client keeps, per site, each token's input and delta while it decodes
 * natural English prompts (the real Qwen tokenizer, greedy continuations), fits M = s·B·A by least
 * squares to the first N tokens ({@link SiteReconstruction}), and measures the relative error ‖(M̂
 * − M)·X‖_F / ‖M·X‖_F on the activations of held-out prompts. N is the smallest token count at
 * which that error is at most 1%.
 *
 * <p>The DP noise is off (sessions opened as the equality tests open them): this is what a client
 * gets from a package served without a noise policy, and an upper bound on its cost with one.
 *
 * <p>Shortcut: the two-round protocol costs about 0.4 s a token on this machine, so the hundreds of
 * tokens are decoded with the plaintext path, whose deltas are exactly s·B·A·x; {@link
 * #protocolDeltas_equalTheSiteProduct_toHePrecision} runs the real protocol (in-process node,
 * client keys, both rounds) on a prompt and shows that the client's deltas equal s·B·A·x to far
 * below the 1% that matters, so the pairs are the same up to that precision.
 *
 * <p>What N depends on: the client learns M exactly on the span of the inputs it has sent and
 * nothing off it, so N is the number of tokens until that span holds the held-out activations to 1%
 * (in M's norm). Plain least squares on full-rank inputs needs N = d_in; a rank-r model does not
 * need fewer (after r tokens fix M's column space, each token gives r numbers A·x, and A has r·d_in
 * unknowns). Natural activations are not full-rank in practice, so N falls below d_in; tokens that
 * repeat an input (the chat template's, at layer 0 where the input is a function of the token id)
 * add nothing. {@link #extractionCostTokens} is the bound the marketplace shows.
 */
class AdapterExtractionTest {
  /**
   * Tokens of natural prompts that rebuild layer 0's q_proj of the tiny model to 1%: the README's
   * number. Exact: that site's input is a function of the token id, so the fit is exact once 64
   * distinct ids have been seen (token 126) and 6.6% off one token before.
   */
  static final int EXTRACTION_TOKENS_TINY = 126;

  /**
   * Per site of the tiny model's adapter, the measured N (decode order, prompts below), each within
   * {@link #WINDOW} (the error crosses 1% within a few tenths of a percent per token, so another
   * CPU's float rounding may move it by one).
   */
  static final Map<String, Integer> TINY_TOKENS_BY_SITE =
      Map.of(
          "model.layers.0.self_attn.q_proj", 126,
          "model.layers.0.self_attn.v_proj", 126,
          "model.layers.0.self_attn.o_proj", 54,
          "model.layers.0.mlp.down_proj", 136,
          "model.layers.1.self_attn.q_proj", 34,
          "model.layers.1.self_attn.v_proj", 27,
          "model.layers.1.self_attn.o_proj", 34,
          "model.layers.1.mlp.down_proj", 137);

  static final int WINDOW = 1;

  /**
   * Natural prompts need at most this many times d_in tokens (measured: up to 1.97 at layer 0's
   * q/v, whose inputs repeat with the token ids; 1.07 at the MLP's down; 0.4 to 0.85 elsewhere).
   */
  static final int NATURAL_FACTOR = 2;

  /** The relative error on held-out activations a reconstruction must reach. */
  static final double TARGET_ERROR = 0.01;

  /** Greedy tokens decoded after each prompt. */
  static final int CONTINUATION = 12;

  static final int RANK = 8;

  /** The prompts the client decodes, in order: its N tokens are the first N of these. */
  static final List<String> TRAINING =
      List.of(
          "How do I apply for a mortgage?",
          "What is the interest rate on a savings account?",
          "Can you explain how compound interest works?",
          "I lost my debit card yesterday, what should I do?",
          "Please summarise the terms of my loan agreement.",
          "Why was my credit card payment declined at the store?",
          "What documents do I need to open a business account?",
          "How long does an international wire transfer usually take?",
          "Is it better to pay off debt or to invest my savings?",
          "Write a short letter asking my bank to raise my overdraft limit.",
          "The weather was cold and the streets were quiet that morning.",
          "Tell me a story about a fox who learns to count coins.",
          "What are the main risks of investing in government bonds?",
          "My salary arrives on the first of the month; when can I pay rent?");

  /** Prompts whose activations the reconstruction is judged on; none of them is trained on. */
  static final List<String> HELD_OUT =
      List.of(
          "What is the safest way to send money to a friend overseas?",
          "My statement shows a charge I do not recognise.",
          "How much should I keep in an emergency fund?",
          "The old library closes early during the summer holidays.",
          "Can a joint account be opened online by two people?",
          "Explain inflation to a twelve year old.",
          "Which is cheaper over ten years, renting or buying a flat?",
          "Please remind me how to reset my online banking password.");

  private static TinyModel model;
  private static QwenTokenizer tokenizer;
  private static LoraAdapter adapter;
  private static SitePlan plan;
  private static ClientKeys keys;

  /** The held-out prompts' activations and deltas at every site of the tiny model's adapter. */
  private static SiteRecorder heldOut;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 31);
    tokenizer = QwenTokenizer.load();
    adapter = tinyAdapter();
    plan = SitePlan.of(adapter, model.decoder().adapterShape());
    keys = ClientKeys.generate(plan.rings(), SecureRandom.getInstance("DRBG"));
    heldOut = decode(model.decoder(), adapter, HELD_OUT);
  }

  @AfterAll
  static void close() throws Exception {
    tokenizer.close();
    model.close();
  }

  /** The rank-8 random adapter on q, v, o and down of every layer. */
  private static LoraAdapter tinyAdapter() {
    return LoraAdapter.random(
        model.decoder().shape(),
        List.of("q_proj", "v_proj", "o_proj", "down_proj"),
        RANK,
        LoraAdapter.scale(16, RANK, false),
        1.0,
        49);
  }

  private static long[] tokens(String prompt) {
    return tokenizer.encode(ChatMessage.chatMl(List.of(new ChatMessage("user", prompt))));
  }

  /**
   * The extraction cost the marketplace shows for a site of input width {@code in}, output width
   * {@code out} and rank {@code rank}: d_in tokens of chosen inputs rebuild it exactly, and no
   * fewer can when r < d_out (N tokens give r·(d_out + N − r) numbers, M has r·(d_in + d_out − r)),
   * so neither d_out nor r enters. Natural prompts need at most {@link #NATURAL_FACTOR} times as
   * many (measured).
   */
  static int extractionCostTokens(int in, int out, int rank) {
    return in;
  }

  @Test
  void protocolDeltas_equalTheSiteProduct_toHePrecision() throws Exception {
    QwenDecoder decoder = model.decoder();
    long[] prompt = tokens(TRAINING.getFirst());
    int steps = 3;
    InProcessNode node =
        InProcessNode.open(
            adapter,
            plan,
            keys,
            PrivateDecodingTest.POLICY,
            new FrameOrder(prompt.length, steps - 1),
            false);
    SiteRecorder client = new SiteRecorder(node.client(keys, plan));
    long[] privately = GreedyDecoding.of(decoder, prompt, client, steps).tokens();
    SiteRecorder plain = new SiteRecorder(new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null));
    assertArrayEquals(GreedyDecoding.of(decoder, prompt, plain, steps).tokens(), privately);

    assertEquals(adapter.sites().keySet(), client.sites().keySet());
    double worst = 0;
    for (Map.Entry<String, SiteRecorder.Pairs> e : client.sites().entrySet()) {
      double[][] m = SiteReconstruction.product(adapter.sites().get(e.getKey()));
      SiteRecorder.Pairs p = e.getValue();
      assertEquals(prompt.length + steps - 1, p.size(), e.getKey());
      for (int t = 0; t < p.size(); t++) {
        worst = Math.max(worst, relativeDistance(p.deltas().get(t), times(m, p.inputs().get(t))));
      }
    }
    System.out.printf("protocol deltas vs s·B·A·x: worst relative error %.3g%n", worst);
    // Measured 1.4e-3 (the session's input scale is set for inputs up to C = 100): a fifth of the
    // 1% the reconstruction is judged at.
    assertTrue(worst < 2e-3, "the client's deltas are s·B·A·x to " + worst);
  }

  /**
   * The client chooses its inputs (private mode lets it: it runs the decoder and encrypts whatever
   * it likes, clipped to C): one prefill step of d_in random rows per group, through the real
   * protocol, rebuilds every site to HE precision on the held-out natural activations; d_in − 1
   * rows do not. One step carries an input to every site, so d_in of the widest site's tokens
   * rebuild the whole adapter.
   */
  @Test
  void chosenInputs_dInTokensThroughTheProtocol_rebuildEverySite() throws Exception {
    int tokens =
        plan.groups().stream().mapToInt(g -> g.sites().getFirst().inputWidth()).max().orElseThrow();
    InProcessNode node =
        InProcessNode.open(
            adapter, plan, keys, PrivateDecodingTest.POLICY, new FrameOrder(tokens, 0), false);
    SiteRecorder client = new SiteRecorder(node.client(keys, plan));
    java.util.SplittableRandom random = new java.util.SplittableRandom(50);
    try (ai.djl.ndarray.NDManager manager = ai.djl.ndarray.NDManager.newBaseManager("PyTorch")) {
      client.beginStep(tokens);
      for (SitePlan.Group g : plan.groups()) {
        double[][] rows = new double[tokens][g.sites().getFirst().inputWidth()];
        for (double[] row : rows) {
          for (int i = 0; i < row.length; i++) {
            row[i] = random.nextGaussian(); // norm about sqrt(d_in), below the clip norm
          }
        }
        List<String> modules = g.sites().stream().map(SitePlan.Site::path).toList();
        client.deltas(modules, io.tensafe.node.runtime.DeltaArrays.array(rows, manager), manager);
      }
    }
    for (Map.Entry<String, LoraAdapter.Site> e : new TreeMap<>(adapter.sites()).entrySet()) {
      LoraAdapter.Site site = e.getValue();
      int in = site.a()[0].length;
      double[][] m = SiteReconstruction.product(site);
      SiteRecorder.Pairs pairs = client.sites().get(e.getKey());
      List<double[]> held = heldOut.sites().get(e.getKey()).inputs();
      double at = SiteReconstruction.errorAfter(pairs, m, held, in);
      double below = SiteReconstruction.errorAfter(pairs, m, held, in - 1);
      System.out.printf(
          "chosen %s d_in=%d: error after d_in %.2e, after d_in-1 %.4f%n",
          e.getKey(), in, at, below);
      assertTrue(at <= TARGET_ERROR, e.getKey() + " after d_in: " + at);
      assertTrue(below > TARGET_ERROR, e.getKey() + " after d_in - 1: " + below);
      assertEquals(in, extractionCostTokens(in, site.b().length, site.rank()));
    }
  }

  @Test
  void tinyModel_everySite_rebuiltToOnePercentFromTheStatedTokens() {
    SiteRecorder train = decode(model.decoder(), adapter, TRAINING);
    Map<String, Integer> measured = measure(adapter, train, heldOut);
    System.out.println("tiny: " + new TreeMap<>(measured));
    assertEquals(EXTRACTION_TOKENS_TINY, measured.get("model.layers.0.self_attn.q_proj"));
    assertEquals(TINY_TOKENS_BY_SITE.keySet(), measured.keySet());
    for (Map.Entry<String, Integer> e : TINY_TOKENS_BY_SITE.entrySet()) {
      int n = measured.get(e.getKey());
      assertTrue(Math.abs(n - e.getValue()) <= WINDOW, e.getKey() + ": N " + n);
    }
  }

  @Test
  void demoModel_everySite_rebuiltWithinTheExtractionCost() throws Exception {
    Path dir = Path.of(System.getProperty("tensafe.demo.model.dir", ".tensafe/run/models/demo"));
    org.junit.jupiter.api.Assertions.assertTrue(
        java.nio.file.Files.isDirectory(dir.resolve("demo-adapter")),
        dir
            + " holds no trained demo model: ./tensafe test builds it (./tensafe model demo --out "
            + dir
            + ")");
    try (QwenDecoder decoder = new QwenDecoder(ModelFolder.load(dir))) {
      LoraAdapter adapter = readPeft(dir.resolve("demo-adapter"));
      Map<String, Integer> measured =
          // The demo's down projection reads 384 wide: 64 tokens a prompt give enough of them.
          measure(
              adapter,
              decode(decoder, adapter, TRAINING, 64),
              decode(decoder, adapter, HELD_OUT),
              false);
      System.out.println("demo: " + new TreeMap<>(measured));
    }
  }

  /**
   * Per site, the measured N, after checking that the fit to N − k tokens is still worse than 1%
   * for k = 1..4 and that N is within {@link #NATURAL_FACTOR} times the extraction cost.
   */
  private static Map<String, Integer> measure(
      LoraAdapter adapter, SiteRecorder train, SiteRecorder test) {
    return measure(adapter, train, test, true);
  }

  /**
   * As {@link #measure(LoraAdapter, SiteRecorder, SiteRecorder)}; {@code withinTwiceTheCost} false
   * where natural text cannot stay within it: on the demo model layer 0's q and v read only the
   * token's embedding, so every one of d_in independent token ids must appear (574 to 654 tokens of
   * its prompts for q and v in two training runs, against d_in = 128).
   */
  private static Map<String, Integer> measure(
      LoraAdapter adapter, SiteRecorder train, SiteRecorder test, boolean withinTwiceTheCost) {
    Map<String, Integer> out = new HashMap<>();
    for (Map.Entry<String, LoraAdapter.Site> e : new TreeMap<>(adapter.sites()).entrySet()) {
      LoraAdapter.Site site = e.getValue();
      double[][] m = SiteReconstruction.product(site);
      SiteRecorder.Pairs pairs = train.sites().get(e.getKey());
      List<double[]> held = test.sites().get(e.getKey()).inputs();
      int n = SiteReconstruction.tokensToReach(pairs, m, held, TARGET_ERROR);
      int in = site.a()[0].length;
      int outWidth = site.b().length;
      System.out.printf(
          "%s d_in=%d d_out=%d r=%d: N=%d of %d (distinct inputs %d), error at N %.4f, at N-1 %.4f%n",
          e.getKey(),
          in,
          outWidth,
          site.rank(),
          n,
          pairs.size(),
          distinct(pairs.inputs()),
          n > 0 ? SiteReconstruction.errorAfter(pairs, m, held, n) : Double.NaN,
          n > 0 ? SiteReconstruction.errorAfter(pairs, m, held, n - 1) : Double.NaN);
      assertTrue(n > 0, e.getKey() + ": " + pairs.size() + " tokens do not rebuild it to 1%");
      for (int k = 1; k <= 4 && n - k >= 0; k++) {
        double worse = SiteReconstruction.errorAfter(pairs, m, held, n - k);
        assertTrue(worse > TARGET_ERROR, e.getKey() + " at N-" + k + ": " + worse);
      }
      assertTrue(
          !withinTwiceTheCost
              || n <= NATURAL_FACTOR * extractionCostTokens(in, outWidth, site.rank()),
          e.getKey() + ": N " + n + " above twice the extraction cost");
      out.put(e.getKey(), n);
    }
    return out;
  }

  /** Every prompt decoded greedily with the adapter (plaintext deltas), each site's pairs kept. */
  private static SiteRecorder decode(QwenDecoder decoder, LoraAdapter adapter, List<String> texts) {
    return decode(decoder, adapter, texts, CONTINUATION);
  }

  /** As {@link #decode(QwenDecoder, LoraAdapter, List)}, {@code continuation} tokens a prompt. */
  private static SiteRecorder decode(
      QwenDecoder decoder, LoraAdapter adapter, List<String> texts, int continuation) {
    SiteRecorder recorder = new SiteRecorder(new LoraPath(adapter, LoraPath.Mode.PLAINTEXT, null));
    for (String text : texts) {
      GreedyDecoding.of(decoder, tokens(text), recorder, continuation);
    }
    return recorder;
  }

  private static int distinct(List<double[]> rows) {
    return (int) rows.stream().map(java.util.Arrays::toString).distinct().count();
  }

  private static double[] times(double[][] m, double[] x) {
    double[] y = new double[m.length];
    for (int o = 0; o < m.length; o++) {
      for (int i = 0; i < x.length; i++) {
        y[o] += m[o][i] * x[i];
      }
    }
    return y;
  }

  private static double relativeDistance(double[] a, double[] b) {
    double d = 0;
    double n = 0;
    for (int i = 0; i < a.length; i++) {
      d += (a[i] - b[i]) * (a[i] - b[i]);
      n += b[i] * b[i];
    }
    return Math.sqrt(d / n);
  }

  /** A PEFT folder's sites as the node reads them (keys without {@code base_model.model.}). */
  private static LoraAdapter readPeft(Path folder) throws Exception {
    PeftAdapter peft = PeftAdapter.load(folder);
    double scale = peft.config().scalingFactor();
    Map<String, LoraAdapter.Site> sites = new HashMap<>();
    try (SafetensorsFile file = SafetensorsFile.open(peft.weights())) {
      for (LoraSite site : peft.sites()) {
        String path = site.site().replaceFirst("^base_model\\.model\\.", "");
        sites.put(
            path,
            new LoraAdapter.Site(matrix(file.read(site.a())), matrix(file.read(site.b())), scale));
      }
    }
    return new LoraAdapter(sites);
  }

  private static double[][] matrix(Tensor t) {
    int rows = Math.toIntExact(t.shape().get(0));
    int cols = Math.toIntExact(t.shape().get(1));
    double[] flat = t.values();
    double[][] m = new double[rows][cols];
    for (int i = 0; i < rows; i++) {
      System.arraycopy(flat, i * cols, m[i], 0, cols);
    }
    return m;
  }
}
