package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the decoder gets an adapter's deltas {@code s·B·A·x}: computed here ({@link LoraPath},
 * hosted mode) or by a node under the client's key (private mode). One sequence drives an instance;
 * the decoder calls {@link #beginStep} once per forward pass, then {@link #deltas} for each group
 * of modules that read one input, in layer order.
 */
public interface AdapterDeltas {
  /**
   * Modules that all read the same rows of an input.
   *
   * @param modules module paths
   * @param rows indices of the input's rows (distinct, each in [0, T)), in the order the deltas'
   *     rows follow
   */
  record RowGroup(List<String> modules, long[] rows) {}

  /** A forward pass over {@code tokens} new tokens (the prompt's, then 1) begins. */
  default void beginStep(int tokens) {}

  /**
   * The deltas for {@code modules} (paths) that all read {@code input} (T × in), each (T × out) in
   * {@code step}'s memory; null entries for modules without an adapter site.
   */
  NDArray[] deltas(List<String> modules, NDArray input, NDManager step);

  /**
   * The deltas of several groups of modules over rows of one input (T × in), as one unit of work:
   * group g's modules read the rows {@code g.rows()} and get (|rows| × out) deltas; null entries
   * for modules without a site. A mixture-of-experts layer asks for every routed expert's gate and
   * up projections this way (the experts read rows of the same input), then for their down
   * projections (each over its own rows of the experts' activations, stacked). {@link LoraPath}
   * releases each row that an adapted module reads once, however many groups read it; this default
   * asks {@link #deltas(List, NDArray, NDManager)} group by group.
   */
  default NDArray[][] groupedDeltas(List<RowGroup> groups, NDArray input, NDManager step) {
    List<NDArray[]> out = new ArrayList<>();
    for (RowGroup g : groups) {
      NDArray rows = input.get(new ai.djl.ndarray.index.NDIndex("{}", step.create(g.rows())));
      out.add(deltas(g.modules(), rows, step));
    }
    return out.toArray(NDArray[][]::new);
  }
}
