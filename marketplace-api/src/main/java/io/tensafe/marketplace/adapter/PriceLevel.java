package io.tensafe.marketplace.adapter;

/**
 * What a client pays per 1000 tokens under one price: the figures a rise is judged by, the one rule
 * for both a scheduled price ({@link PriceService}) and a new version replacing an older one
 * ({@link NewVersionNotice}).
 *
 * @param currency ISO 4217 code
 * @param promptMicrosPer1kTokens hosted prompt price
 * @param completionMicrosPer1kTokens hosted completion price
 * @param privateMicrosPer1kTokens what private sessions pay per 1000 tokens processed: the private
 *     price, else the larger hosted one ({@link PriceChange#privateOrHosted})
 */
public record PriceLevel(
    String currency,
    long promptMicrosPer1kTokens,
    long completionMicrosPer1kTokens,
    long privateMicrosPer1kTokens) {

  /** The level of a stored price row. */
  public static PriceLevel of(AdapterPrice p) {
    return new PriceLevel(
        p.currency.trim(),
        p.promptMicrosPer1kTokens,
        p.completionMicrosPer1kTokens,
        PriceChange.privateOrHosted(
            p.privateMicrosPer1kTokens, p.promptMicrosPer1kTokens, p.completionMicrosPer1kTokens));
  }

  /** The level of a requested change, in {@code currency} (a version's prices share one). */
  public static PriceLevel of(String currency, PriceChange c) {
    return new PriceLevel(
        currency.trim(),
        c.promptMicrosPer1kTokens(),
        c.completionMicrosPer1kTokens(),
        PriceChange.privateOrHosted(
            c.privateMicrosPer1kTokens(),
            c.promptMicrosPer1kTokens(),
            c.completionMicrosPer1kTokens()));
  }

  /**
   * Whether a client pays more under this level than under {@code before} for some request: the
   * prompt, completion or private price above its counterpart (a cut of one does not make up for a
   * rise of another: a client's mix of tokens is its own), or another currency, which cannot be
   * compared and so counts as a rise.
   */
  public boolean risesFrom(PriceLevel before) {
    return !currency.equals(before.currency)
        || promptMicrosPer1kTokens > before.promptMicrosPer1kTokens
        || completionMicrosPer1kTokens > before.completionMicrosPer1kTokens
        || privateMicrosPer1kTokens > before.privateMicrosPer1kTokens;
  }
}
