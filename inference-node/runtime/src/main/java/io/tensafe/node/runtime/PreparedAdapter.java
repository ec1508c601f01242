package io.tensafe.node.runtime;

import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.kernels.helora.PreparedSite;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * An adapter whose {@code A} matrices are packed for the HE-LoRA operator once, when it is loaded,
 * and then shared read-only by every request that uses this version (requests hold their own {@link
 * LoraPath}). Each site goes to the operator sized for its input width, so a node keeps one
 * operator per ring degree rather than the largest ring for every site.
 */
public final class PreparedAdapter {
  private final LoraAdapter adapter;
  private final Map<String, PreparedSite> prepared;
  private final Map<String, HeLoraOperator> operators;
  private final long bytes;

  /**
   * @param operatorFor the HE operator for an input width d (called once per site); null prepares
   *     nothing, and such an adapter only serves {@link LoraPath.Mode#PLAINTEXT}
   */
  public PreparedAdapter(LoraAdapter adapter, IntFunction<HeLoraOperator> operatorFor) {
    this.adapter = adapter;
    Map<String, PreparedSite> sites = new HashMap<>();
    Map<String, HeLoraOperator> ops = new HashMap<>();
    long size = 0;
    for (Map.Entry<String, LoraAdapter.Site> e : adapter.sites().entrySet()) {
      LoraAdapter.Site site = e.getValue();
      long weights = 8L * site.rank() * (site.a()[0].length + site.b().length);
      size += weights;
      if (operatorFor != null) {
        HeLoraOperator op = operatorFor.apply(site.a()[0].length);
        ops.put(e.getKey(), op);
        sites.put(e.getKey(), op.prepare(site.a()));
        size += 8L * site.rank() * site.a()[0].length;
      }
    }
    this.prepared = Map.copyOf(sites);
    this.operators = Map.copyOf(ops);
    this.bytes = size;
  }

  public LoraAdapter adapter() {
    return adapter;
  }

  /** Whether the sites were prepared for HE. */
  public boolean heReady() {
    return !prepared.isEmpty() || adapter.sites().isEmpty();
  }

  /**
   * Estimated heap held, in bytes: A and B as doubles, plus (when prepared for HE) one double per
   * element of A for its packed, transformed form. Used for the node's adapter memory budget.
   */
  public long bytes() {
    return bytes;
  }

  PreparedSite site(String module) {
    return prepared.get(module);
  }

  HeLoraOperator operator(String module) {
    return operators.get(module);
  }
}
