package io.tensafe.marketplace.adapter;

/**
 * Whether a version's creator offers private mode for it, and the quota each client organisation
 * has of it (issue 49): at most {@code tokensPerPeriod} tokens of private sessions, prompt and
 * completion alike, per period of {@code periodDays} days, periods aligned to the Unix epoch (UTC).
 *
 * @param offered false: private sessions of the version are refused (403 private-mode-not-offered)
 * @param tokensPerPeriod ≥ 1; null when the creator never set a quota (never offered)
 * @param periodDays in [1, 366]; null likewise
 * @param extractionTokens what the quota is weighed against (ADR 0035): the tokens of chosen inputs
 *     after which a modified client has rebuilt the version's cheapest site's {@code B·A}, the
 *     smallest input width d_in of its sites (a site of width d_in falls after d_in tokens, {@code
 *     AdapterExtractionTest}); a quota at or above it protects that site not at all. Null where the
 *     version is unknown
 */
public record PrivateModeView(
    boolean offered, Long tokensPerPeriod, Integer periodDays, Long extractionTokens) {
  /** A version whose creator never offered private mode (its extraction cost not looked up). */
  public static final PrivateModeView NOT_OFFERED = new PrivateModeView(false, null, null, null);
}
