package io.tensafe.marketplace.usage;

/**
 * The marketplace's answer to a usage report.
 *
 * @param status "recorded" the first time, "duplicate" when the same report was recorded before
 */
public record UsageAck(String requestId, String status) {}
