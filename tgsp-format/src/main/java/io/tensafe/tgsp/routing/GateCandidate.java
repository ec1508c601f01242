package io.tensafe.tgsp.routing;

import java.util.List;

/**
 * A published adapter version the step-gate may pick, with the keywords and phrases from its
 * manifest and its price, which breaks some ties.
 *
 * @param adapterId the adapter's public id
 * @param version the version that would serve the request
 * @param keywords words or phrases, any case; blank ones are ignored
 * @param currency the currency of its price now; null when the caller has no price to compare
 * @param microsPer1kTokens its prompt plus completion price per 1k tokens now, ≥ 0
 */
public record GateCandidate(
    String adapterId,
    String version,
    List<String> keywords,
    String currency,
    long microsPer1kTokens) {
  public GateCandidate {
    keywords = List.copyOf(keywords);
  }

  /** A candidate without a price: ties among such candidates skip the price rule. */
  public GateCandidate(String adapterId, String version, List<String> keywords) {
    this(adapterId, version, keywords, null, 0);
  }
}
