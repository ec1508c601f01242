package io.tensafe.client.marketplace;

import io.tensafe.node.privatemode.SitePlan;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a session's plan is one the client's decoder can follow ({@link SitePlan}'s order): every
 * site is a module of {@link SitePlan#LAYER_GROUPS} at {@code model.layers.L.}, a group's sites
 * read one input of one layer (q, k and v; o; gate and up; down), each once, and groups come in the
 * decoder's order. The node builds the plan; one that breaks this is the node's fault, found here
 * before any frame leaves, and not a base-model mismatch.
 */
final class DecoderOrder {
  private static final Pattern SITE = Pattern.compile("model\\.layers\\.(\\d{1,6})\\.(.+)");

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

  /** Where the decoder reads {@code path}'s input: layer × groups per layer + the group. */
  private static long position(String path) {
    Matcher m = SITE.matcher(path);
    if (m.matches()) {
      for (int k = 0; k < SitePlan.LAYER_GROUPS.size(); k++) {
        if (SitePlan.LAYER_GROUPS.get(k).contains(m.group(2))) {
          return Long.parseLong(m.group(1)) * SitePlan.LAYER_GROUPS.size() + k;
        }
      }
    }
    throw new IllegalArgumentException(
        path + " is not a module private mode adapts (a layer's q/k/v/o or gate/up/down_proj)");
  }
}
