package io.tensafe.marketplace.privacy;

import java.time.OffsetDateTime;

/**
 * One organisation's privacy budget for one adapter and period, as clients and admins see it.
 *
 * @param epsilonLimit the period's ε at {@code delta}, the policy's plus top-ups (RDP conversion of
 *     the limit's zCDP ρ, so at most what the policy and top-ups state)
 * @param epsilonSpent ε spent so far at {@code delta}, reservations in flight included
 * @param spentFraction ε spent over the ε limit, in [0, 1] (the unit of the two figures beside it)
 */
public record BudgetView(
    String adapter,
    OffsetDateTime periodStart,
    OffsetDateTime periodEnd,
    double delta,
    double epsilonLimit,
    double epsilonSpent,
    double spentFraction) {}
