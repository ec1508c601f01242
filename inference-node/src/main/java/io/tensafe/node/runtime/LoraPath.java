package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.kernels.helora.HeLoraResult;
import io.tensafe.kernels.helora.PreparedSite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Applies an adapter's deltas {@code s·B·(A x)} inside the decoder. In {@link Mode#HE} every {@code
 * A x} goes through the kernels' HE-LoRA operator (hosted mode, the node's session key), the sites
 * that share an input (q, k and v of a layer) in one call; {@code B·u} and the scale are applied in
 * plaintext. {@link Mode#PLAINTEXT} computes {@code A x} in the clear and exists only to verify the
 * HE path.
 */
public final class LoraPath {
  /** How {@code A x} is computed. */
  public enum Mode {
    HE,
    PLAINTEXT
  }

  private final LoraAdapter adapter;
  private final Mode mode;
  private final HeLoraOperator operator;
  private final Map<String, PreparedSite> prepared = new HashMap<>();
  private final AtomicLong heCalls = new AtomicLong();

  /**
   * @param operator the HE-LoRA operator (required in HE mode; sites are prepared once, here)
   */
  public LoraPath(LoraAdapter adapter, Mode mode, HeLoraOperator operator) {
    this.adapter = adapter;
    this.mode = mode;
    this.operator = operator;
    if (mode == Mode.HE) {
      adapter.sites().forEach((name, site) -> prepared.put(name, operator.prepare(site.a())));
    }
  }

  /** Operator calls made so far (HE mode). */
  public long heCalls() {
    return heCalls.get();
  }

  /**
   * The deltas for {@code modules} (paths) that all read {@code input} (T × in); null entries for
   * modules without an adapter site.
   */
  NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
    NDArray[] out = new NDArray[modules.size()];
    List<Integer> present = new ArrayList<>();
    for (int i = 0; i < modules.size(); i++) {
      if (adapter.sites().containsKey(modules.get(i))) {
        present.add(i);
      }
    }
    if (present.isEmpty()) {
      return out;
    }
    int tokens = (int) input.getShape().get(0);
    int width = (int) input.getShape().get(1);
    double[][] rows = new double[tokens][width];
    float[] flat = input.toFloatArray();
    for (int t = 0; t < tokens; t++) {
      for (int j = 0; j < width; j++) {
        rows[t][j] = flat[t * width + j];
      }
    }
    List<double[][]> products = new ArrayList<>();
    if (mode == Mode.HE) {
      List<HeLoraOperator.SiteInputs> requests = new ArrayList<>();
      for (int i : present) {
        requests.add(new HeLoraOperator.SiteInputs(prepared.get(modules.get(i)), rows));
      }
      heCalls.incrementAndGet();
      for (HeLoraResult r : operator.applyAll(requests)) {
        products.add(r.outputs());
      }
    } else {
      for (int i : present) {
        double[][] a = adapter.sites().get(modules.get(i)).a();
        double[][] u = new double[tokens][a.length];
        for (int t = 0; t < tokens; t++) {
          for (int r = 0; r < a.length; r++) {
            double sum = 0;
            for (int j = 0; j < width; j++) {
              sum += a[r][j] * rows[t][j];
            }
            u[t][r] = sum;
          }
        }
        products.add(u);
      }
    }
    for (int k = 0; k < present.size(); k++) {
      LoraAdapter.Site site = adapter.sites().get(modules.get(present.get(k)));
      double[][] u = products.get(k);
      int outWidth = site.b().length;
      float[] delta = new float[tokens * outWidth];
      for (int t = 0; t < tokens; t++) {
        for (int o = 0; o < outWidth; o++) {
          double sum = 0;
          for (int r = 0; r < site.rank(); r++) {
            sum += site.b()[o][r] * u[t][r];
          }
          delta[t * outWidth + o] = (float) (site.scale() * sum);
        }
      }
      out[present.get(k)] = step.create(delta, new Shape(tokens, outWidth));
    }
    return out;
  }
}
