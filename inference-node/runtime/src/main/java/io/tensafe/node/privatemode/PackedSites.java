package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateScales;
import io.tensafe.kernels.helora.PrivateWeights;
import io.tensafe.kernels.helora.SharedLoraNode;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An adapter's sites packed for a plan at the session scales its policy and signed bounds fix (ADR
 * 0034): the plaintexts follow from the weights, those public scales and the layout only, never
 * from a client's key, so one packing serves every session of the adapter under that policy and
 * plan. Immutable; its plaintexts are shared read-only by the sessions that adopt them.
 *
 * @param scales the scales the sites are packed at
 */
public record PackedSites(
    SitePlan plan, PrivateScales scales, Map<String, SharedLoraNode.Site> byPath) {
  public PackedSites {
    byPath = Map.copyOf(byPath);
  }

  /**
   * The bytes the packed plaintexts hold in memory: per plaintext, its residues and their Shoup
   * companions, 8 bytes each (the layouts and norms beside them are small).
   */
  public long bytes() {
    long words = 0;
    for (SharedLoraNode.Site site : byPath.values()) {
      for (List<PrivateWeights.Site> matrix : List.of(site.a(), site.b())) {
        for (PrivateWeights.Site chunk : matrix) {
          for (ShoupPlaintext p : chunk.plaintexts()) {
            words += 2L * p.plaintext().limbCount() * p.plaintext().poly().degree();
          }
        }
      }
    }
    return 8 * words;
  }

  /**
   * Packs every site of {@code plan}.
   *
   * @throws IllegalArgumentException if the adapter's weights exceed its signed bounds
   */
  public static PackedSites pack(
      LoraAdapter adapter, PrivateBounds bounds, SitePlan plan, InputPrivacy policy) {
    bounds.check(adapter);
    PrivateScales scales = bounds.scales(policy);
    Map<String, SharedLoraNode.Site> packed = new HashMap<>();
    for (SitePlan.Group g : plan.groups()) {
      for (SitePlan.Site s : g.sites()) {
        LoraAdapter.Site site = adapter.sites().get(s.path());
        packed.put(
            s.path(),
            SharedLoraNode.prepareShared(
                SitePlan.parameters(g),
                site.a(),
                PrivateBounds.scaled(site.b(), site.scale()),
                scales,
                g.inputChunks(),
                g.roundTwo(s)));
      }
    }
    return new PackedSites(plan, scales, packed);
  }
}
