package io.tensafe.marketplace.openai;

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
 */
public record ServedVersion(
    String adapterId,
    UUID adapterUuid,
    String version,
    UUID fleetId,
    String baseModel,
    List<String> keywords,
    int releasesPerToken) {}
