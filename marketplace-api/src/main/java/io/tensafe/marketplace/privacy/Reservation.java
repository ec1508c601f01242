package io.tensafe.marketplace.privacy;

import java.time.OffsetDateTime;

/**
 * A privacy-budget reservation made before dispatch.
 *
 * @param requestId the request it covers
 * @param tokens the tokens reserved for (the request's max_tokens)
 * @param epsilonSpent the budget's ε spent after this reservation, at its δ (RDP conversion)
 * @param epsilonLimit the budget's ε per period (the policy's, plus top-ups)
 * @param resetsAt when the budget's period ends
 */
public record Reservation(
    String requestId,
    long tokens,
    double epsilonSpent,
    double epsilonLimit,
    OffsetDateTime resetsAt) {}
