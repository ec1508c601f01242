package io.tensafe.node.usage;

import java.time.Instant;

/**
 * What one generation used, as the node reports it to the marketplace (JSON, camelCase names).
 * Idempotent by {@code requestId}: the marketplace records a request id once.
 *
 * @param requestId the request's id (the marketplace's, or one the node assigned), a UUID
 * @param node the node's registered name
 * @param adapterId the adapter used, or null for the base model
 * @param adapterVersion its version, or null for the base model
 * @param promptTokens tokens in the prompt, ≥ 1
 * @param completionTokens tokens generated, ≥ 0
 * @param finishReason "stop", "length" or "cancelled"
 * @param dpReleases noised LoRA inputs released (0 when the adapter has no DP policy)
 * @param dpNoiseMultiplier σ/C used, or 0 when no noise was applied
 * @param heCalls HE operator calls
 * @param heEncryptions input vectors encrypted
 * @param hePlaintextProducts ct×pt products
 * @param heDecryptions product ciphertexts decrypted
 * @param heMillis wall time in the HE operator, in milliseconds
 * @param totalMillis wall time of the whole generation, in milliseconds
 * @param startedAt when generation started
 * @param finishedAt when it ended
 */
public record UsageReport(
    String requestId,
    String node,
    String adapterId,
    String adapterVersion,
    int promptTokens,
    int completionTokens,
    String finishReason,
    long dpReleases,
    double dpNoiseMultiplier,
    long heCalls,
    long heEncryptions,
    long hePlaintextProducts,
    long heDecryptions,
    double heMillis,
    double totalMillis,
    Instant startedAt,
    Instant finishedAt) {}
