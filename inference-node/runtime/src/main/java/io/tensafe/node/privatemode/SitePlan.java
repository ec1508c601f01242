package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateClient;
import io.tensafe.kernels.helora.PrivatePacking;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.LoraAdapter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A private session's public plan (ADR 0017): the adapter's sites in the groups the decoder visits
 * them, per layer q/k/v, o, gate/up, down, keeping only groups with a site. Group {@code g} of a
 * step is the frame group {@code g}. Each group computes in the smallest ring that holds its input
 * ({@link #parameters(Group)}); the client makes one key per ring the base model's inputs can need
 * ({@link #ringsOf}), before it knows the adapter's sites. Shapes only: no weights.
 *
 * @param rings log2 of the ring degrees the session's keys are for, ascending, distinct, in [12,
 *     16]: every group's ring is one of them
 */
public record SitePlan(List<Group> groups, List<Integer> rings) {
  /** The module suffixes of each layer's groups, in the decoder's order. */
  public static final List<List<String>> LAYER_GROUPS =
      List.of(
          List.of("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"),
          List.of("self_attn.o_proj"),
          List.of("mlp.gate_proj", "mlp.up_proj"),
          List.of("mlp.down_proj"));

  /**
   * One adapted module.
   *
   * @param path the module's path, e.g. {@code model.layers.0.self_attn.q_proj}
   * @param inputWidth d, ≥ 1
   * @param outputWidth the delta's width, ≥ 1
   * @param rank r, ≥ 1
   */
  public record Site(String path, int inputWidth, int outputWidth, int rank) {
    public Site {
      if (inputWidth < 1 || outputWidth < 1 || rank < 1) {
        throw new IllegalArgumentException("site widths and rank must be positive: " + path);
      }
    }
  }

  /** Sites that read one input: 1 to 3, of one input width. */
  public record Group(List<Site> sites) {
    /**
     * The chunks round one's input goes in ({@link PrivatePacking#inputChunks} for the group's
     * width, ranks and ring): both parties compute it from the plan.
     */
    public int inputChunks() {
      return PrivatePacking.inputChunks(
          sites.getFirst().inputWidth(),
          sites.stream().mapToInt(Site::rank).toArray(),
          parameters(this));
    }

    /**
     * Round two of {@code site}: its r + 1 shares' chunks (its rows and the check, ADR 0025) and
     * how its answers are packed ({@link PrivatePacking#roundTwo}, ADR 0032).
     */
    public PrivatePacking.RoundTwo roundTwo(Site site) {
      return PrivatePacking.roundTwo(site.rank(), site.outputWidth(), parameters(this));
    }

    /** The chunks round two's shares of {@code site} go in. */
    public int shareChunks(Site site) {
      return roundTwo(site).shareChunks();
    }

    public Group {
      sites = List.copyOf(sites);
      if (sites.isEmpty() || sites.size() > 3) {
        throw new IllegalArgumentException("a group has 1 to 3 sites");
      }
      for (Site s : sites) {
        if (s.inputWidth() != sites.getFirst().inputWidth()) {
          throw new IllegalArgumentException("a group's sites read one input width");
        }
      }
    }
  }

  public SitePlan {
    groups = List.copyOf(groups);
    rings = List.copyOf(rings);
    if (groups.isEmpty()) {
      throw new IllegalArgumentException("a private session needs at least one adapted site");
    }
    for (int i = 0; i < rings.size(); i++) {
      if (rings.get(i) < 12 || rings.get(i) > 16 || (i > 0 && rings.get(i) <= rings.get(i - 1))) {
        throw new IllegalArgumentException("rings must be ascending log2 degrees in [12, 16]");
      }
    }
    for (Group g : groups) {
      if (!rings.contains(parameters(g).logN())) {
        throw new IllegalArgumentException(
            "group of " + g.sites().getFirst().path() + " needs a ring the plan has no key for");
      }
    }
  }

  /** The rings a model of {@code shape} can need: one per distinct adaptable input width's ring. */
  public static List<Integer> ringsOf(ModelShape shape) {
    return java.util.stream.IntStream.of(
            shape.hiddenSize(), shape.attentionHeads() * shape.headDim(), shape.intermediateSize())
        .map(w -> PrivateClient.parametersFor(w).logN())
        .distinct()
        .sorted()
        .boxed()
        .toList();
  }

  /** The parameters of the ring of log2 degree {@code logN} (one of {@link #rings}). */
  public static Parameters ring(int logN) {
    return PrivateClient.parametersFor(1 << logN);
  }

  /** The plan of {@code adapter} on a decoder of {@code shape}. */
  public static SitePlan of(LoraAdapter adapter, ModelShape shape) {
    int layers = shape.layers();
    List<Group> groups = new ArrayList<>();
    int placed = 0;
    for (int layer = 0; layer < layers; layer++) {
      for (List<String> suffixes : LAYER_GROUPS) {
        List<Site> sites = new ArrayList<>();
        for (String suffix : suffixes) {
          String path = "model.layers." + layer + "." + suffix;
          LoraAdapter.Site s = adapter.sites().get(path);
          if (s != null) {
            sites.add(new Site(path, s.a()[0].length, s.b().length, s.rank()));
          }
        }
        if (!sites.isEmpty()) {
          groups.add(new Group(sites));
          placed += sites.size();
        }
      }
    }
    if (placed != adapter.sites().size()) {
      List<String> planned =
          groups.stream().flatMap(g -> g.sites().stream()).map(Site::path).toList();
      String outside =
          adapter.sites().keySet().stream()
              .filter(p -> !planned.contains(p))
              .sorted()
              .findFirst()
              .orElseThrow();
      throw new IllegalArgumentException(
          outside.contains(".experts.")
              ? "private mode does not serve adapters on experts (ADR 0019): " + outside
              : "the adapter's site " + outside + " is not a module of the decoder's layers");
    }
    return new SitePlan(groups, ringsOf(shape));
  }

  /** The group index of each site's path. */
  public Map<String, Integer> groupIndex() {
    Map<String, Integer> index = new HashMap<>();
    for (int g = 0; g < groups.size(); g++) {
      for (Site s : groups.get(g).sites()) {
        index.put(s.path(), g);
      }
    }
    return index;
  }

  /** The group that holds {@code path}, if any. */
  public Optional<Integer> groupOf(String path) {
    return Optional.ofNullable(groupIndex().get(path));
  }

  /** The parameters group {@code g} computes in: the smallest ring holding its input and ranks. */
  public static Parameters parameters(Group g) {
    int widest = g.sites().getFirst().inputWidth();
    for (Site s : g.sites()) {
      widest = Math.max(widest, s.rank());
    }
    return PrivateClient.parametersFor(widest);
  }
}
