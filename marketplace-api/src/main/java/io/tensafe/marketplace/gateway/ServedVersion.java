package io.tensafe.marketplace.gateway;

import java.util.List;
import java.util.UUID;

/**
 * A published adapter version a request can be served with.
 *
 * @param adapterId the adapter's id (adapter_ref)
 * @param adapterUuid its row id
 * @param version MAJOR.MINOR.PATCH
 * @param fleetId the fleet its package is encrypted to
 * @param baseModel the base model it adapts (nodes must serve it)
 * @param keywords the step-gate keywords from its manifest
 * @param releasesPerToken DP releases (distinct noised LoRA inputs) per token the model processes,
 *     from the manifest's tensors ({@code LoraInputs}); at least 1
 * @param currency the currency of its price in force when it was resolved
 * @param promptMicrosPer1kTokens its prompt price in force now
 * @param completionMicrosPer1kTokens its completion price in force now
 * @param versionId its row id
 * @param priceId the id of its price row in force when it was resolved
 * @param newest whether it was resolved as its adapter's newest version (named without one), which
 *     the admission checks it still is
 */
public record ServedVersion(
    String adapterId,
    UUID adapterUuid,
    String version,
    UUID fleetId,
    String baseModel,
    List<String> keywords,
    int releasesPerToken,
    String currency,
    long promptMicrosPer1kTokens,
    long completionMicrosPer1kTokens,
    UUID versionId,
    long priceId,
    boolean newest) {
  /** Whether {@code cap} (null: none) allows this version's price. */
  public boolean withinCap(io.tensafe.marketplace.apikey.PriceCap cap) {
    return cap == null
        || cap.allows(currency, promptMicrosPer1kTokens, completionMicrosPer1kTokens);
  }
}
