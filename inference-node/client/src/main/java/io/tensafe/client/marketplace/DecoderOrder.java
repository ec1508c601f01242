package io.tensafe.client.marketplace;

import io.tensafe.node.privatemode.SitePlan;
import java.util.HashSet;
import java.util.Set;

/**
 * Whether a session's plan is one the client's decoder can follow ({@link SitePlan}'s order): every
 * site is a module of {@link SitePlan#LAYER_GROUPS} at {@code model.layers.L.} or an expert's gate,
 * up or down projection at {@code model.layers.L.mlp.experts.E.}, a group's sites read one input of
 * one layer (q, k and v; o; gate and up, of the MLP or of one expert; down), each once, and groups
 * come in the decoder's order ({@link SitePlan#decoderPosition}). The node builds the plan; one
 * that breaks this is the node's fault, found here before any frame leaves, and not a base-model
 * mismatch.
 */
final class DecoderOrder {
  private DecoderOrder() {}

  /**
   * @throws IllegalArgumentException naming the first site or group out of place
   */
  static void check(SitePlan plan) {
    long previous = -1;
    for (SitePlan.Group g : plan.groups()) {
      long position = position(g.sites().getFirst().path());
      Set<String> paths = new HashSet<>();
      for (SitePlan.Site s : g.sites()) {
        if (position(s.path()) != position || !paths.add(s.path())) {
          throw new IllegalArgumentException(
              "a group holds "
                  + g.sites().stream().map(SitePlan.Site::path).toList()
                  + ", which the decoder does not read from one input");
        }
      }
      if (position <= previous) {
        throw new IllegalArgumentException(
            "the group of " + g.sites().getFirst().path() + " is out of the decoder's order");
      }
      previous = position;
    }
  }

  private static long position(String path) {
    return SitePlan.decoderPosition(path)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    path
                        + " is not a module private mode adapts (a layer's q/k/v/o or"
                        + " gate/up/down_proj, or an expert's)"));
  }
}
