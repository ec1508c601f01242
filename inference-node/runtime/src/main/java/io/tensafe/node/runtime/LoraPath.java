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
 * and exists only to verify the HE path. With {@link InputPrivacy}, each input is clipped and
 * noised before it is encrypted, and each such release is counted.
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
  private long heCalls;
  private long heNanos;
  private long releases;
  private final long[] counts = new long[6];

  /**
   * @param privacy the input mechanism, or null for none (then no release is counted)
   */
  public LoraPath(PreparedAdapter prepared, Mode mode, InputPrivacy privacy) {
    if (mode == Mode.HE && !prepared.heReady()) {
      throw new IllegalArgumentException("the adapter was not prepared for HE");
    }
    this.prepared = prepared;
    this.mode = mode;
    this.privacy = privacy;
    this.noise = privacy == null ? null : new SecureRandom();
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

  /** Noised inputs released so far (0 without {@link InputPrivacy}). */
  public long releases() {
    return releases;
  }

  /** The operator's work so far, summed over calls. */
  public OperationCounts operationCounts() {
    return new OperationCounts(counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]);
  }

  @Override
  public NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
    NDArray[] out = new NDArray[modules.size()];
    List<Integer> present = new ArrayList<>();
    for (int i = 0; i < modules.size(); i++) {
      if (prepared.adapter().sites().containsKey(modules.get(i))) {
        present.add(i);
      }
    }
    if (present.isEmpty()) {
      return out;
    }
    double[][] rows = DeltaArrays.rows(input);
    if (privacy != null) {
      for (double[] row : rows) {
        privacy.release(row, noise);
      }
      releases += rows.length;
    }
    List<double[][]> products =
        mode == Mode.HE ? encrypted(modules, present, rows) : plaintext(modules, present, rows);
    for (int k = 0; k < present.size(); k++) {
      LoraAdapter.Site site = prepared.adapter().sites().get(modules.get(present.get(k)));
      out[present.get(k)] = expand(site, products.get(k), step);
    }
    return out;
  }

  private List<double[][]> encrypted(List<String> modules, List<Integer> present, double[][] rows) {
    List<HeLoraOperator.SiteInputs> requests = new ArrayList<>();
    for (int i : present) {
      requests.add(new HeLoraOperator.SiteInputs(prepared.site(modules.get(i)), rows));
    }
    long start = System.nanoTime();
    List<HeLoraResult> results = prepared.operator(modules.get(present.get(0))).applyAll(requests);
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

  private List<double[][]> plaintext(List<String> modules, List<Integer> present, double[][] rows) {
    List<double[][]> products = new ArrayList<>();
    for (int i : present) {
      double[][] a = prepared.adapter().sites().get(modules.get(i)).a();
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

  /** {@code s·B·u} for each token, as a (T × out) array. */
  private static NDArray expand(LoraAdapter.Site site, double[][] u, NDManager step) {
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
    return DeltaArrays.array(delta, step);
  }
}
