package io.tensafe.marketplace.routing;

import java.util.List;

/**
 * A published adapter version the step-gate may pick, with the keywords and phrases from its
 * manifest. Candidates are passed in registration order (first published first), which is the order
 * that breaks ties.
 *
 * @param adapterId the adapter's public id
 * @param version the version that would serve the request
 * @param keywords words or phrases, any case; blank ones are ignored
 */
public record GateCandidate(String adapterId, String version, List<String> keywords) {
  public GateCandidate {
    keywords = List.copyOf(keywords);
  }
}
