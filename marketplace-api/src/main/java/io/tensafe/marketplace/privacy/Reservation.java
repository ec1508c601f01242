package io.tensafe.marketplace.privacy;

import java.time.OffsetDateTime;

/**
 * A privacy-budget reservation made before dispatch.
 *
 * @param requestId the request it covers
 * @param releases the DP releases reserved for: (prompt-token bound + max_tokens) × the adapter's
 *     releases per token
 * @param epsilonSpent the budget's ε spent after this reservation, at its δ (RDP conversion)
 * @param epsilonLimit the budget's ε per period (the policy's, plus top-ups)
 * @param resetsAt when the budget's period ends
 */
public record Reservation(
    String requestId,
    long releases,
    double epsilonSpent,
    double epsilonLimit,
    OffsetDateTime resetsAt) {}
