package io.tensafe.marketplace.billing;

/**
 * The money of one metered request, in integer micro-units of its currency.
 *
 * <p>Rounding rule: {@code amount = round_half_up((promptTokens · promptPrice + completionTokens ·
 * completionPrice) / 1000)}, prices being micro-units per 1,000 tokens; {@code creator =
 * floor(amount · (10000 − take) / 10000)}, take in basis points; {@code platform = amount −
 * creator}. So {@code creator + platform = amount} exactly for every request, the platform keeps
 * the sub-micro remainder of the split, and period totals are sums of these integers.
 *
 * @param amountMicros charged to the client, ≥ 0
 * @param creatorMicros the creator's share, in [0, amount]
 * @param platformMicros the platform's share, amount − creator
 */
public record ChargeAmounts(long amountMicros, long creatorMicros, long platformMicros) {
  /** 100% in basis points. */
  public static final int FULL_TAKE = 10_000;

  public ChargeAmounts {
    if (amountMicros < 0
        || creatorMicros < 0
        || platformMicros < 0
        || creatorMicros + platformMicros != amountMicros) {
      throw new IllegalArgumentException(
          "shares must be non-negative and add up to the amount: "
              + creatorMicros
              + " + "
              + platformMicros
              + " != "
              + amountMicros);
    }
  }

  /**
   * The charge for a request.
   *
   * @param promptTokens ≥ 0
   * @param completionTokens ≥ 0
   * @param promptMicrosPer1k > 0
   * @param completionMicrosPer1k > 0
   * @param takeBasisPoints the platform's take, in [0, 10000]
   * @throws IllegalArgumentException for out-of-range inputs or an amount beyond 2^63 micro-units
   */
  public static ChargeAmounts of(
      long promptTokens,
      long completionTokens,
      long promptMicrosPer1k,
      long completionMicrosPer1k,
      int takeBasisPoints) {
    if (promptTokens < 0 || completionTokens < 0) {
      throw new IllegalArgumentException("token counts must be >= 0");
    }
    if (promptMicrosPer1k <= 0 || completionMicrosPer1k <= 0) {
      throw new IllegalArgumentException("prices must be > 0");
    }
    if (takeBasisPoints < 0 || takeBasisPoints > FULL_TAKE) {
      throw new IllegalArgumentException(
          "take must be in [0, 10000] basis points, was " + takeBasisPoints);
    }
    try {
      long thousandths =
          Math.addExact(
              Math.multiplyExact(promptTokens, promptMicrosPer1k),
              Math.multiplyExact(completionTokens, completionMicrosPer1k));
      long amount = Math.addExact(thousandths, 500) / 1000;
      long creator = Math.multiplyExact(amount, (long) (FULL_TAKE - takeBasisPoints)) / FULL_TAKE;
      return new ChargeAmounts(amount, creator, amount - creator);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("the charge exceeds 2^63 micro-units", e);
    }
  }
}
