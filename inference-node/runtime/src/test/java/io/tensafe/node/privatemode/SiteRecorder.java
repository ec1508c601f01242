package io.tensafe.node.privatemode;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.DeltaArrays;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A modified client's bookkeeping: passes every call to {@code inner} (a {@link ClientDeltas} or
 * the plaintext path) and keeps, per adapted site, each token's input x and the delta it received,
 * in the order the decoder asked for them. Dense models (routed experts come through the default
 * {@code groupedDeltas}, which asks {@link #deltas} group by group).
 */
record SiteRecorder(AdapterDeltas inner, Map<String, Pairs> sites) implements AdapterDeltas {
  /** One site's inputs and deltas, row t of each from the same token. */
  record Pairs(List<double[]> inputs, List<double[]> deltas) {
    int size() {
      return inputs.size();
    }
  }

  SiteRecorder(AdapterDeltas inner) {
    this(inner, new LinkedHashMap<>());
  }

  @Override
  public void beginStep(int tokens) {
    inner.beginStep(tokens);
  }

  @Override
  public NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
    NDArray[] out = inner.deltas(modules, input, step);
    double[][] rows = DeltaArrays.rows(input);
    for (int i = 0; i < modules.size(); i++) {
      if (out[i] != null) {
        Pairs p =
            sites.computeIfAbsent(
                modules.get(i), k -> new Pairs(new ArrayList<>(), new ArrayList<>()));
        p.inputs().addAll(List.of(rows));
        p.deltas().addAll(List.of(DeltaArrays.rows(out[i])));
      }
    }
    return out;
  }
}
