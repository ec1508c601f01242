package io.tensafe.marketplace.usage;

import io.tensafe.marketplace.validation.PublicId;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Instant;

/**
 * A node's usage report for one request (the inference node's {@code UsageReport}); see that record
 * for the meaning of each field. Counts are non-negative; times are in milliseconds.
 */
public record NodeUsageReport(
    @NotNull @Pattern(regexp = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        String requestId,
    @NotNull @PublicId String node,
    @PublicId String adapterId,
    @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}") String adapterVersion,
    @Min(0) @Max(10_000_000) int promptTokens,
    @Min(0) @Max(10_000_000) int completionTokens,
    @NotNull @Pattern(regexp = "stop|length|cancelled") String finishReason,
    @PositiveOrZero long dpReleases,
    @PositiveOrZero @DecimalMax("1e6") double dpNoiseMultiplier,
    @PositiveOrZero long heCalls,
    @PositiveOrZero long heEncryptions,
    @PositiveOrZero long hePlaintextProducts,
    @PositiveOrZero long heDecryptions,
    @PositiveOrZero double heMillis,
    @PositiveOrZero double totalMillis,
    @NotNull Instant startedAt,
    @NotNull Instant finishedAt) {}
