package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.kernels.helora.HeLoraResult;
import io.tensafe.kernels.helora.OperationCounts;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * One request's use of an adapter inside the decoder: the deltas {@code s·B·(A x)}. In {@link
 * Mode#HE} every {@code A x} goes through the kernels' HE-LoRA operator (hosted mode, the node's
 * session key), the sites that share an input (q, k and v; gate and up) in one call; {@code B·u}
 * and the scale are applied in plaintext. {@link Mode#PLAINTEXT} computes {@code A x} in the clear
 * and exists only to verify the HE path. With an {@link InputPrivacy}, each input is clipped to C
 * before it is encrypted, as private mode clips, and under a policy with noise each site's output
 * for each token gets the policy's noise σ = z·2·L·C (L from the weights as a pack signs it, {@code
 * PrivateBounds}), the same mechanism private mode's round two applies (ADR 0035); each noised site
 * and token is counted as one release.
 *
 * <p>Not thread-safe: one generation drives it. Counters are totals since construction.
 */
public final class LoraPath implements AdapterDeltas {
  /** How {@code A x} is computed. */
  public enum Mode {
    HE,
    PLAINTEXT
  }

  private final PreparedAdapter prepared;
  private final Mode mode;
  private final InputPrivacy privacy;
  private final SecureRandom noise;
  private final double sigma;
  private long heCalls;
  private long heNanos;
  private long releases;
  private final long[] counts = new long[6];

  /**
   * @param privacy the adapter's DP policy, or null for none (tests); under a policy every input is
   *     clipped to its C, as in private mode, and only a policy with z > 0 noises and counts
   */
  public LoraPath(PreparedAdapter prepared, Mode mode, InputPrivacy privacy) {
    if (mode == Mode.HE && !prepared.heReady()) {
      throw new IllegalArgumentException("the adapter was not prepared for HE");
    }
    this.prepared = prepared;
    this.mode = mode;
    this.privacy = privacy;
    boolean noised = privacy != null && privacy.noised();
    this.noise = noised ? new SecureRandom() : null;
    this.sigma =
        !noised ? 0 : privacy.outputSigma(SpectralBound.asPackWouldSign(prepared.adapter()));
  }

  /** An unprepared adapter with one operator for every site, no input noise (tests, benchmarks). */
  public LoraPath(LoraAdapter adapter, Mode mode, HeLoraOperator operator) {
    this(new PreparedAdapter(adapter, mode == Mode.HE ? d -> operator : null), mode, null);
  }

  /** Operator calls made so far (HE mode). */
  public long heCalls() {
    return heCalls;
  }

  /** Wall time spent in the operator so far, in nanoseconds. */
  public long heNanos() {
    return heNanos;
  }

  /** Noised site outputs released so far, one per site and token (0 without noise). */
  public long releases() {
    return releases;
  }

  /** The operator's work so far, summed over calls. */
  public OperationCounts operationCounts() {
    return new OperationCounts(counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]);
  }

  @Override
  public NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
    long[] all = new long[(int) input.getShape().get(0)];
    for (int t = 0; t < all.length; t++) {
      all[t] = t;
    }
    return groupedDeltas(List.of(new RowGroup(modules, all)), input, step)[0];
  }

  /**
   * Every adapted module of every group in one operator call (HE mode); under a noised policy each
   * input row read by an adapted module is clipped once, and each site's output row is noised and
   * counted as one release.
   */
  @Override
  public NDArray[][] groupedDeltas(List<RowGroup> groups, NDArray input, NDManager step) {
    NDArray[][] out = new NDArray[groups.size()][];
    int tokens = (int) input.getShape().get(0);
    boolean[] read = new boolean[tokens];
    List<int[]> present = new ArrayList<>(); // {group, module}
    for (int g = 0; g < groups.size(); g++) {
      RowGroup group = groups.get(g);
      out[g] = new NDArray[group.modules().size()];
      for (int i = 0; i < group.modules().size(); i++) {
        if (prepared.adapter().sites().containsKey(group.modules().get(i))) {
          present.add(new int[] {g, i});
          for (long r : group.rows()) {
            read[Math.toIntExact(r)] = true;
          }
        }
      }
    }
    if (present.isEmpty()) {
      return out;
    }
    double[][] rows = DeltaArrays.rows(input);
    if (privacy != null) {
      for (int t = 0; t < tokens; t++) {
        if (read[t]) {
          privacy.clip(rows[t]);
        }
      }
    }
    List<String> paths = new ArrayList<>();
    List<double[][]> inputs = new ArrayList<>();
    for (int[] at : present) {
      RowGroup group = groups.get(at[0]);
      paths.add(group.modules().get(at[1]));
      double[][] own = new double[group.rows().length][];
      for (int k = 0; k < own.length; k++) {
        own[k] = rows[(int) group.rows()[k]];
      }
      inputs.add(own);
    }
    List<double[][]> products =
        mode == Mode.HE ? encrypted(paths, inputs) : plaintext(paths, inputs);
    for (int k = 0; k < present.size(); k++) {
      LoraAdapter.Site site = prepared.adapter().sites().get(paths.get(k));
      out[present.get(k)[0]][present.get(k)[1]] = expand(site, products.get(k), step, this::noise);
    }
    return out;
  }

  private List<double[][]> encrypted(List<String> paths, List<double[][]> inputs) {
    List<HeLoraOperator.SiteInputs> requests = new ArrayList<>();
    for (int k = 0; k < paths.size(); k++) {
      requests.add(new HeLoraOperator.SiteInputs(prepared.site(paths.get(k)), inputs.get(k)));
    }
    long start = System.nanoTime();
    List<HeLoraResult> results = applyAll(paths, requests);
    heNanos += System.nanoTime() - start;
    heCalls++;
    List<double[][]> products = new ArrayList<>();
    for (HeLoraResult r : results) {
      OperationCounts c = r.counts();
      counts[0] += c.encryptions();
      counts[1] += c.plaintextProducts();
      counts[2] += c.decryptions();
      counts[3] += c.forwardNtts();
      counts[4] += c.inverseNtts();
      counts[5] += c.coefficientExtractions();
      products.add(r.outputs());
    }
    return products;
  }

  /** The requests on each operator (one per ring degree) in one call each, results in order. */
  private List<HeLoraResult> applyAll(
      List<String> paths, List<HeLoraOperator.SiteInputs> requests) {
    java.util.Map<HeLoraOperator, List<Integer>> byOperator = new java.util.LinkedHashMap<>();
    for (int k = 0; k < paths.size(); k++) {
      byOperator.computeIfAbsent(prepared.operator(paths.get(k)), o -> new ArrayList<>()).add(k);
    }
    HeLoraResult[] results = new HeLoraResult[paths.size()];
    for (var e : byOperator.entrySet()) {
      List<HeLoraResult> part =
          e.getKey().applyAll(e.getValue().stream().map(requests::get).toList());
      for (int j = 0; j < part.size(); j++) {
        results[e.getValue().get(j)] = part.get(j);
      }
    }
    return List.of(results);
  }

  private List<double[][]> plaintext(List<String> paths, List<double[][]> inputs) {
    List<double[][]> products = new ArrayList<>();
    for (int k = 0; k < paths.size(); k++) {
      double[][] a = prepared.adapter().sites().get(paths.get(k)).a();
      double[][] rows = inputs.get(k);
      double[][] u = new double[rows.length][a.length];
      for (int t = 0; t < rows.length; t++) {
        for (int r = 0; r < a.length; r++) {
          double sum = 0;
          for (int j = 0; j < rows[t].length; j++) {
            sum += a[r][j] * rows[t][j];
          }
          u[t][r] = sum;
        }
      }
      products.add(u);
    }
    return products;
  }

  /** Adds the policy's noise to one site's output rows and counts them, if the policy noises. */
  private void noise(double[][] delta) {
    if (noise == null) {
      return;
    }
    for (double[] row : delta) {
      // The kernels' exact normals (their tail is not cut, ADR 0035), from a seed of the CSPRNG.
      byte[] seed = new byte[32];
      noise.nextBytes(seed);
      double[] normals = io.tensafe.kernels.ring.Samplers.normalsFromSeed(seed, row.length);
      for (int o = 0; o < row.length; o++) {
        row[o] += sigma * normals[o];
      }
      releases++;
    }
  }

  /** {@code s·B·u} for each token, then {@code noise} applied, as a (T × out) array. */
  private static NDArray expand(
      LoraAdapter.Site site,
      double[][] u,
      NDManager step,
      java.util.function.Consumer<double[][]> noise) {
    double[][] delta = new double[u.length][site.b().length];
    for (int t = 0; t < u.length; t++) {
      for (int o = 0; o < delta[t].length; o++) {
        double sum = 0;
        for (int r = 0; r < site.rank(); r++) {
          sum += site.b()[o][r] * u[t][r];
        }
        delta[t][o] = site.scale() * sum;
      }
    }
    noise.accept(delta);
    return DeltaArrays.array(delta, step);
  }
}
