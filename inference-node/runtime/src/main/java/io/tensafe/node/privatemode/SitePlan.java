package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateClient;
import io.tensafe.kernels.helora.PrivatePacking;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.peft.BaseModelShape;
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

  /**
   * The rings a model of {@code sites}' shape can need: one per distinct adaptable input width's
   * ring: the hidden size, the attention's width and, per MLP, its intermediate width (each
   * expert's; the dense MLP's only where a layer has one).
   */
  public static List<Integer> ringsOf(BaseModelShape sites) {
    java.util.stream.IntStream.Builder widths = java.util.stream.IntStream.builder();
    widths.add(sites.hiddenSize()).add(sites.attentionHeads() * sites.headDim());
    java.util.Optional<io.tensafe.tgsp.peft.ExpertShape> experts = sites.moe();
    if (experts.isPresent()) {
      widths.add(experts.get().intermediateSize());
    }
    if (experts.isEmpty()
        || java.util.stream.IntStream.range(0, sites.layers())
            .anyMatch(l -> !experts.get().sparse(l))) {
      widths.add(sites.intermediateSize());
    }
    return widths
        .build()
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

  /**
   * The plan of {@code adapter} on a decoder of {@code shape}: its sites in {@link #LAYER_GROUPS}
   * per layer and, for a mixture-of-experts layer, each expert's gate and up as one group and its
   * down as another, every expert's gate/up group before any down group, experts in ascending order
   * ({@link #decoderPosition}). An expert's group is in the plan whether or not a token is routed
   * to it: the client sends every group of the plan at every step (ADR 0034).
   *
   * @throws IllegalArgumentException naming a site that is no module of the decoder's layers
   */
  public static SitePlan of(LoraAdapter adapter, BaseModelShape shape) {
    java.util.TreeMap<Long, List<Site>> byPosition = new java.util.TreeMap<>();
    for (Map.Entry<String, LoraAdapter.Site> e : adapter.sites().entrySet()) {
      String path = e.getKey();
      long position = decoderPosition(path).orElse(-1);
      if (position < 0 || layerOf(position) >= shape.layers()) {
        throw new IllegalArgumentException(
            "the adapter's site " + path + " is not a module of the decoder's layers");
      }
      LoraAdapter.Site s = e.getValue();
      byPosition
          .computeIfAbsent(position, k -> new ArrayList<>())
          .add(new Site(path, s.a()[0].length, s.b().length, s.rank()));
    }
    List<Group> groups = new ArrayList<>();
    for (List<Site> sites : byPosition.values()) {
      sites.sort(java.util.Comparator.comparingInt(s -> moduleIndex(s.path())));
      groups.add(new Group(sites));
    }
    return new SitePlan(groups, ringsOf(shape));
  }

  private static final java.util.regex.Pattern LAYER_SITE =
      java.util.regex.Pattern.compile("model\\.layers\\.(\\d{1,6})\\.(.+)");

  private static final java.util.regex.Pattern EXPERT_SITE =
      java.util.regex.Pattern.compile("mlp\\.experts\\.(\\d{1,6})\\.(gate_proj|up_proj|down_proj)");

  /** Bits of a position below the layer's group kind: the expert's number plus one, or zero. */
  private static final int EXPERT_BITS = 24;

  /**
   * Where the decoder reads {@code path}'s input, as a number that orders the groups the way it
   * visits them: layer, then the kind of group ({@link #LAYER_GROUPS}' index; an expert's gate and
   * up count as the MLP's gate/up, its down as the MLP's down), then the expert. Two sites read one
   * input exactly when their positions are equal. Empty for a path private mode does not adapt.
   */
  public static java.util.OptionalLong decoderPosition(String path) {
    java.util.regex.Matcher m = LAYER_SITE.matcher(path);
    if (!m.matches()) {
      return java.util.OptionalLong.empty();
    }
    long layer = Long.parseLong(m.group(1));
    String module = m.group(2);
    long expert = 0;
    java.util.regex.Matcher x = EXPERT_SITE.matcher(module);
    if (x.matches()) {
      expert = Long.parseLong(x.group(1)) + 1;
      module = "mlp." + x.group(2);
    }
    for (int k = 0; k < LAYER_GROUPS.size(); k++) {
      if (LAYER_GROUPS.get(k).contains(module)) {
        return java.util.OptionalLong.of(
            ((layer * LAYER_GROUPS.size() + k) << EXPERT_BITS) + expert);
      }
    }
    return java.util.OptionalLong.empty();
  }

  /**
   * The expert {@code path} names ({@code model.layers.L.mlp.experts.E.*}), or -1 for a module that
   * is no expert's.
   */
  public static int expertOf(String path) {
    return (int) (decoderPosition(path).orElse(0) & ((1L << EXPERT_BITS) - 1)) - 1;
  }

  /**
   * {@link #decoderPosition} without the expert: one value for every expert's gate and up of one
   * layer, another for their downs; -1 for a path private mode does not adapt.
   */
  public static long inputKind(String path) {
    return decoderPosition(path).orElse(-1L << EXPERT_BITS) >> EXPERT_BITS;
  }

  private static long layerOf(long position) {
    return (position >> EXPERT_BITS) / LAYER_GROUPS.size();
  }

  /**
   * The module's index in its group of {@link #LAYER_GROUPS}: q before k before v, gate before up.
   */
  private static int moduleIndex(String path) {
    String module = path.substring(path.lastIndexOf('.') + 1);
    for (List<String> suffixes : LAYER_GROUPS) {
      for (int i = 0; i < suffixes.size(); i++) {
        if (suffixes.get(i).endsWith("." + module)) {
          return i;
        }
      }
    }
    throw new IllegalArgumentException(path);
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
