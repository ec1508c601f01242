package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;

/**
 * Where the decoder gets an adapter's deltas {@code s·B·A·x}: computed here ({@link LoraPath},
 * hosted mode) or by a node under the client's key (private mode). One sequence drives an instance;
 * the decoder calls {@link #beginStep} once per forward pass, then {@link #deltas} for each group
 * of modules that read one input, in layer order.
 */
public interface AdapterDeltas {
  /** A forward pass over {@code tokens} new tokens (the prompt's, then 1) begins. */
  default void beginStep(int tokens) {}

  /**
   * The deltas for {@code modules} (paths) that all read {@code input} (T × in), each (T × out) in
   * {@code step}'s memory; null entries for modules without an adapter site.
   */
  NDArray[] deltas(List<String> modules, NDArray input, NDManager step);
}
