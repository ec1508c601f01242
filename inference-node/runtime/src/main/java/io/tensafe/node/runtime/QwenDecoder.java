package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.model.WeightTensor;
import java.util.List;

/**
 * A Qwen2, Qwen2.5, Qwen3 or Qwen3-MoE decoder on DJL NDArrays (PyTorch engine, computing in F32;
 * weight matrices held in their folder's precision, BF16 ones multiplied by this package's vector
 * loops, F16 ones widened per product: {@link WeightMatrix}): RMSNorm, rotary position embedding
 * (the "rotate half" form of Hugging Face), grouped-query attention with the q/k/v projection
 * biases (Qwen2) or per-head q/k RMSNorm (Qwen3) and a causal mask, SwiGLU MLP or, in Qwen3-MoE's
 * sparse layers, a router over SwiGLU experts (softmax, top k, optionally renormalised; each expert
 * runs once per step over the tokens routed to it), tied or separate output head. Every tensor of
 * the folder must be one it uses: one it does not know is an error naming it, never silently
 * ignored. {@link #forward} processes new tokens after those already in a {@link KvCache} (prefill
 * or decode) and returns the logits of the last one.
 *
 * <p>Weights live in this object's manager; close it to free them. Calls on different caches may
 * run concurrently; one cache serves one sequence at a time.
 */
public final class QwenDecoder implements AutoCloseable {
  private final NDManager manager;
  private final ModelShape shape;
  private final String modelType;
  private final double ropeTheta;
  private final float rmsEps;
  private final WeightMatrix embedding; // (vocab, hidden)
  private final WeightMatrix output; // (vocab, hidden): the embedding when tied
  private final NDArray finalNorm;
  private final Layer[] layers;
  private final java.util.Set<String> used = new java.util.HashSet<>();
  private final WideningBuffers buffers;
  private final WeightPrecision precision;
  private final java.lang.foreign.Arena weights; // BF16 matrices' storage, freed by close()

  private record Layer(
      NDArray inputNorm,
      WeightMatrix q,
      WeightMatrix k,
      WeightMatrix v,
      WeightMatrix o,
      NDArray qBias,
      NDArray kBias,
      NDArray vBias,
      NDArray qNorm,
      NDArray kNorm,
      NDArray postNorm,
      WeightMatrix gate,
      WeightMatrix up,
      WeightMatrix down,
      Experts experts) {}

  /**
   * A sparse layer's MLP: the router {@code (experts, hidden)} and each expert's SwiGLU; a token
   * runs its {@code topK} most probable experts, weighted by their router probabilities
   * (renormalised to sum 1 when {@code normalise}).
   */
  private record Experts(
      WeightMatrix router,
      WeightMatrix[] gate,
      WeightMatrix[] up,
      WeightMatrix[] down,
      int topK,
      boolean normalise) {}

  private final io.tensafe.tgsp.peft.BaseModelShape adapterShape;

  /** A decoder holding half-precision weights in two bytes ({@link WeightPrecision#HALF}). */
  public QwenDecoder(ModelFolder folder) {
    this(folder, WeightPrecision.HALF);
  }

  /** A decoder holding half-precision weights as {@code precision} says. */
  public QwenDecoder(ModelFolder folder, WeightPrecision precision) {
    this.precision = precision;
    this.manager = NDManager.newBaseManager("PyTorch");
    this.weights = java.lang.foreign.Arena.ofShared();
    this.buffers = new WideningBuffers(manager);
    try {
      this.shape = folder.shape();
      this.adapterShape = shape.adapterShape(folder.moe().orElse(null));
      this.modelType = folder.modelType();
      this.ropeTheta = folder.ropeTheta();
      this.rmsEps = (float) folder.rmsNormEps();
      this.embedding = matrix(folder, "model.embed_tokens.weight");
      if (shape.tieEmbeddings() && folder.weights().containsKey("lm_head.weight")) {
        // Some exports write the tied head out; it must then be the embedding's copy.
        if (!sameValues(
            folder.weights().get("lm_head.weight"),
            folder.weights().get("model.embed_tokens.weight"))) {
          throw new IllegalArgumentException(
              "tie_word_embeddings is true but lm_head.weight differs from the embedding");
        }
        used.add("lm_head.weight");
      }
      this.output =
          shape.tieEmbeddings() || !folder.weights().containsKey("lm_head.weight")
              ? embedding
              : matrix(folder, "lm_head.weight");
      this.finalNorm = array(folder, "model.norm.weight");
      this.layers = new Layer[shape.layers()];
      for (int i = 0; i < layers.length; i++) {
        String p = "model.layers." + i + ".";
        int layer = i;
        boolean sparse = folder.moe().map(m -> m.sparse(layer)).orElse(false);
        layers[i] =
            new Layer(
                array(folder, p + "input_layernorm.weight"),
                matrix(folder, p + "self_attn.q_proj.weight"),
                matrix(folder, p + "self_attn.k_proj.weight"),
                matrix(folder, p + "self_attn.v_proj.weight"),
                matrix(folder, p + "self_attn.o_proj.weight"),
                optional(folder, p + "self_attn.q_proj.bias"),
                optional(folder, p + "self_attn.k_proj.bias"),
                optional(folder, p + "self_attn.v_proj.bias"),
                optional(folder, p + "self_attn.q_norm.weight"),
                optional(folder, p + "self_attn.k_norm.weight"),
                array(folder, p + "post_attention_layernorm.weight"),
                sparse ? null : matrix(folder, p + "mlp.gate_proj.weight"),
                sparse ? null : matrix(folder, p + "mlp.up_proj.weight"),
                sparse ? null : matrix(folder, p + "mlp.down_proj.weight"),
                sparse ? experts(folder, p, folder.moe().orElseThrow()) : null);
      }
      List<String> unused =
          folder.weights().keySet().stream().filter(n -> !used.contains(n)).sorted().toList();
      if (!unused.isEmpty()) {
        throw new IllegalArgumentException(
            "the model folder has "
                + unused.size()
                + " tensor(s) this decoder does not use, e.g. "
                + unused.subList(0, Math.min(3, unused.size())));
      }
    } catch (RuntimeException | Error e) {
      close(); // the weights copied so far
      throw e;
    }
  }

  private Experts experts(ModelFolder folder, String p, MoeShape moe) {
    int n = moe.experts();
    WeightMatrix[] gate = new WeightMatrix[n];
    WeightMatrix[] up = new WeightMatrix[n];
    WeightMatrix[] down = new WeightMatrix[n];
    for (int e = 0; e < n; e++) {
      String x = p + "mlp.experts." + e + ".";
      gate[e] = matrix(folder, x + "gate_proj.weight");
      up[e] = matrix(folder, x + "up_proj.weight");
      down[e] = matrix(folder, x + "down_proj.weight");
    }
    return new Experts(
        matrix(folder, p + "mlp.gate.weight"),
        gate,
        up,
        down,
        moe.expertsPerToken(),
        moe.normTopKProb());
  }

  /** A vector (norm weight, bias), widened to F32: they are small. */
  private NDArray array(ModelFolder folder, String name) {
    WeightTensor t = tensor(folder, name);
    long[] dims = t.shape().stream().mapToLong(Long::longValue).toArray();
    return manager.create(t.floats(), new Shape(dims));
  }

  /** A matrix, held in its own precision ({@link WeightMatrix}). */
  private WeightMatrix matrix(ModelFolder folder, String name) {
    return WeightMatrix.of(manager, weights, tensor(folder, name), buffers, precision);
  }

  private WeightTensor tensor(ModelFolder folder, String name) {
    WeightTensor t = folder.weights().get(name);
    if (t == null) {
      throw new IllegalArgumentException("the model has no tensor " + name);
    }
    used.add(name);
    return t;
  }

  private static boolean sameValues(WeightTensor a, WeightTensor b) {
    return a.dtype() == b.dtype()
        ? a.sameAs(b)
        : a.shape().equals(b.shape()) && java.util.Arrays.equals(a.floats(), b.floats());
  }

  private NDArray optional(ModelFolder folder, String name) {
    return folder.weights().containsKey(name) ? array(folder, name) : null;
  }

  public ModelShape shape() {
    return shape;
  }

  /** The shape adapters are checked against, experts included for a Qwen3-MoE model. */
  public io.tensafe.tgsp.peft.BaseModelShape adapterShape() {
    return adapterShape;
  }

  /** A fresh cache for one sequence. */
  public KvCache newCache() {
    return new KvCache(manager, layers.length);
  }

  /**
   * Runs {@code tokens} at the positions after those in {@code cache}, appends their keys and
   * values to it, and returns the logits (vocabulary size) of the last token.
   */
  public float[] forward(long[] tokens, KvCache cache) {
    return forward(tokens, cache, null);
  }

  /**
   * As {@link #forward(long[], KvCache)}, with an adapter's deltas added at its target modules (any
   * of q, k, v, o, gate, up and down projections; {@code lora} null for the base model). Sites that
   * read the same input (q, k, v; gate, up) go to the HE operator in one call.
   */
  public float[] forward(long[] tokens, KvCache cache, AdapterDeltas lora) {
    if (tokens.length == 0) {
      throw new IllegalArgumentException("no tokens");
    }
    for (long t : tokens) {
      if (t < 0 || t >= shape.vocabSize()) {
        throw new IllegalArgumentException("token id " + t + " is outside the vocabulary");
      }
    }
    int start = cache.length;
    int count = tokens.length;
    if (lora != null) {
      lora.beginStep(count);
    }
    int heads = shape.attentionHeads();
    int kvHeads = shape.keyValueHeads();
    int d = shape.headDim();
    try (NDManager step = cache.manager.newSubManager()) {
      NDArray x = embedding.rows(step, step.create(tokens));
      NDArray[] rope = rope(step, start, count, d);
      NDArray mask = causalMask(step, start, count);
      for (int i = 0; i < layers.length; i++) {
        Layer l = layers[i];
        NDArray h = rmsNorm(x, l.inputNorm());
        String site = "model.layers." + i + ".self_attn.";
        NDArray[] qkv =
            lora == null
                ? new NDArray[3]
                : lora.deltas(List.of(site + "q_proj", site + "k_proj", site + "v_proj"), h, step);
        NDArray[] base = WeightMatrix.products(h, l.q(), l.k(), l.v());
        NDArray q = plus(plus(base[0], l.qBias()), qkv[0]).reshape(count, heads, d);
        NDArray k = plus(plus(base[1], l.kBias()), qkv[1]).reshape(count, kvHeads, d);
        NDArray v = plus(plus(base[2], l.vBias()), qkv[2]).reshape(count, kvHeads, d);
        if (l.qNorm() != null) {
          q = rmsNorm(q, l.qNorm());
          k = rmsNorm(k, l.kNorm());
        }
        q = applyRope(q, rope, d);
        k = applyRope(k, rope, d);
        NDArray keys = cache.keys[i] == null ? k : cache.keys[i].concat(k, 0);
        NDArray values = cache.values[i] == null ? v : cache.values[i].concat(v, 0);
        keys.attach(cache.manager);
        values.attach(cache.manager);
        if (cache.keys[i] != null) {
          cache.keys[i].close();
          cache.values[i].close();
        }
        cache.keys[i] = keys;
        cache.values[i] = values;
        NDArray kAll = keys.repeat(1, heads / kvHeads).transpose(1, 2, 0); // (H, d, S)
        NDArray vAll = values.repeat(1, heads / kvHeads).transpose(1, 0, 2); // (H, S, d)
        NDArray scores = q.transpose(1, 0, 2).matMul(kAll).div(Math.sqrt(d)).add(mask);
        NDArray attended = scores.softmax(-1).matMul(vAll); // (H, T, d)
        NDArray merged = attended.transpose(1, 0, 2).reshape(count, (long) heads * d);
        NDArray[] o =
            lora == null ? new NDArray[1] : lora.deltas(List.of(site + "o_proj"), merged, step);
        x = x.add(plus(l.o().product(merged), o[0]));
        NDArray m = rmsNorm(x, l.postNorm());
        if (l.experts() != null) {
          if (lora != null) {
            String dense = "model.layers." + i + ".mlp.";
            for (NDArray delta :
                lora.deltas(
                    List.of(dense + "gate_proj", dense + "up_proj", dense + "down_proj"),
                    m,
                    step)) {
              if (delta != null) {
                throw new IllegalStateException(
                    "layer " + i + " is sparse: its MLP has experts, not " + dense + "*_proj");
              }
            }
          }
          x = x.add(routed(m, l.experts(), step, lora, "model.layers." + i + ".mlp.experts."));
          continue;
        }
        String mlp = "model.layers." + i + ".mlp.";
        NDArray[] gateUp =
            lora == null
                ? new NDArray[2]
                : lora.deltas(List.of(mlp + "gate_proj", mlp + "up_proj"), m, step);
        NDArray[] gateUpBase = WeightMatrix.products(m, l.gate(), l.up());
        NDArray gate = plus(gateUpBase[0], gateUp[0]);
        NDArray act = gate.mul(Activation.sigmoid(gate)).mul(plus(gateUpBase[1], gateUp[1]));
        NDArray[] down =
            lora == null ? new NDArray[1] : lora.deltas(List.of(mlp + "down_proj"), act, step);
        x = x.add(plus(l.down().product(act), down[0]));
      }
      NDArray last = rmsNorm(x.get(step, new NDIndex((count - 1) + ":")), finalNorm);
      float[] logits = output.product(last).toFloatArray();
      cache.length += count;
      return logits;
    }
  }

  /**
   * A sparse MLP over the step's tokens: router probabilities (softmax over the experts), each
   * token's top k, then each expert once over the tokens routed to it (with the adapter's deltas on
   * its gate, up and down projections, {@code ...mlp.experts.E.gate_proj} and so on, for those
   * tokens only), its outputs added to those tokens' rows with their weights.
   */
  private static NDArray routed(
      NDArray m, Experts e, NDManager step, AdapterDeltas lora, String expertsPath) {
    int tokens = (int) m.getShape().get(0);
    int hidden = (int) m.getShape().get(1);
    int experts = e.gate().length;
    float[] probabilities = e.router().product(m).softmax(-1).toFloatArray();
    List<List<int[]>> routes = new java.util.ArrayList<>(); // per expert: {token}
    List<List<Float>> weights = new java.util.ArrayList<>();
    for (int x = 0; x < experts; x++) {
      routes.add(new java.util.ArrayList<>());
      weights.add(new java.util.ArrayList<>());
    }
    for (int t = 0; t < tokens; t++) {
      Integer[] order = new Integer[experts];
      for (int x = 0; x < experts; x++) {
        order[x] = x;
      }
      int row = t * experts;
      java.util.Arrays.sort(
          order, (a, b) -> Float.compare(probabilities[row + b], probabilities[row + a]));
      float sum = 0;
      for (int k = 0; k < e.topK(); k++) {
        sum += probabilities[row + order[k]];
      }
      for (int k = 0; k < e.topK(); k++) {
        float w = probabilities[row + order[k]];
        routes.get(order[k]).add(new int[] {t});
        weights.get(order[k]).add(e.normalise() ? w / sum : w);
      }
    }
    List<Integer> active = new java.util.ArrayList<>();
    List<AdapterDeltas.RowGroup> gateUpGroups = new java.util.ArrayList<>();
    for (int x = 0; x < experts; x++) {
      if (!routes.get(x).isEmpty()) {
        active.add(x);
        String path = expertsPath + x + ".";
        gateUpGroups.add(
            new AdapterDeltas.RowGroup(
                List.of(path + "gate_proj", path + "up_proj"),
                routes.get(x).stream().mapToLong(r -> r[0]).toArray()));
      }
    }
    // Every routed expert's gate and up deltas in one unit of work, then every down delta in one.
    NDArray[][] gateUp =
        lora == null ? new NDArray[active.size()][2] : lora.groupedDeltas(gateUpGroups, m, step);
    NDArray[] acts = new NDArray[active.size()];
    List<AdapterDeltas.RowGroup> downGroups = new java.util.ArrayList<>();
    long stacked = 0;
    for (int k = 0; k < active.size(); k++) {
      int x = active.get(k);
      long[] rows = gateUpGroups.get(k).rows();
      NDArray in = m.get(new NDIndex("{}", step.create(rows)));
      NDArray[] gateUpBase = WeightMatrix.products(in, e.gate()[x], e.up()[x]);
      NDArray gate = plus(gateUpBase[0], gateUp[k][0]);
      acts[k] = gate.mul(Activation.sigmoid(gate)).mul(plus(gateUpBase[1], gateUp[k][1]));
      long[] own = new long[rows.length];
      for (int r = 0; r < own.length; r++) {
        own[r] = stacked++;
      }
      downGroups.add(new AdapterDeltas.RowGroup(List.of(expertsPath + x + ".down_proj"), own));
    }
    NDArray[][] down =
        lora == null || active.isEmpty()
            ? new NDArray[active.size()][1]
            : lora.groupedDeltas(
                downGroups,
                acts.length == 1 ? acts[0] : NDArrays.concat(new ai.djl.ndarray.NDList(acts)),
                step);
    float[] out = new float[tokens * hidden];
    for (int k = 0; k < active.size(); k++) {
      int x = active.get(k);
      long[] rows = gateUpGroups.get(k).rows();
      float[] y = plus(e.down()[x].product(acts[k]), down[k][0]).toFloatArray();
      for (int r = 0; r < rows.length; r++) {
        float w = weights.get(x).get(r);
        int base = (int) rows[r] * hidden;
        for (int j = 0; j < hidden; j++) {
          out[base + j] += w * y[r * hidden + j];
        }
      }
    }
    return step.create(out, new Shape(tokens, hidden));
  }

  private static NDArray plus(NDArray base, NDArray delta) {
    return delta == null ? base : base.add(delta);
  }

  private NDArray rmsNorm(NDArray x, NDArray weight) {
    NDArray variance = x.square().mean(new int[] {-1}, true);
    return x.div(variance.add(rmsEps).sqrt()).mul(weight);
  }

  /** cos and sin of shape (T, 1, d) for positions start..start+count-1 (HF "rotate half"). */
  private NDArray[] rope(NDManager step, int start, int count, int d) {
    float[] cos = new float[count * d];
    float[] sin = new float[count * d];
    int half = d / 2;
    for (int t = 0; t < count; t++) {
      for (int j = 0; j < half; j++) {
        double inverseFrequency = Math.pow(ropeTheta, -2.0 * j / d);
        double angle = (start + t) * inverseFrequency;
        cos[t * d + j] = cos[t * d + j + half] = (float) Math.cos(angle);
        sin[t * d + j] = sin[t * d + j + half] = (float) Math.sin(angle);
      }
    }
    return new NDArray[] {
      step.create(cos, new Shape(count, 1, d)), step.create(sin, new Shape(count, 1, d))
    };
  }

  private static NDArray applyRope(NDArray x, NDArray[] rope, int d) {
    int half = d / 2;
    NDArray first = x.get(new NDIndex(":, :, :" + half));
    NDArray second = x.get(new NDIndex(":, :, " + half + ":"));
    NDArray rotated = second.neg().concat(first, 2);
    return x.mul(rope[0]).add(rotated.mul(rope[1]));
  }

  /** (1, T, S) additive mask: 0 where key position ≤ query position, −∞ after. */
  private static NDArray causalMask(NDManager step, int start, int count) {
    int total = start + count;
    float[] mask = new float[count * total];
    for (int t = 0; t < count; t++) {
      for (int s = 0; s < total; s++) {
        mask[t * total + s] = s <= start + t ? 0f : Float.NEGATIVE_INFINITY;
      }
    }
    return step.create(mask, new Shape(1, count, total));
  }

  /** The model type it was built from ("qwen2" or "qwen3"). */
  public String modelType() {
    return modelType;
  }

  /**
   * Frees the weights. A {@code forward} still running on another thread then fails (with {@link
   * IllegalStateException} where it reads a BF16 matrix), it never reads freed memory.
   */
  @Override
  public void close() {
    manager.close();
    weights.close();
  }
}
