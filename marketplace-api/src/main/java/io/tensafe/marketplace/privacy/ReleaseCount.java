package io.tensafe.marketplace.privacy;

/**
 * How many DP releases a generation made, from what the marketplace saw of it: the one rule every
 * settlement uses (hosted completions, private sessions, node reports, the sweep of unreported
 * requests). A node's model runs every prompt token once (prefill) and feeds back every generated
 * token but the last, and each token it runs releases the adapter's {@code releasesPerToken} noised
 * inputs (or noised sites, in private mode); so a generation with prompt P whose n ≥ 1 tokens were
 * relayed made at least {@code (P + n − 1) × releasesPerToken} ({@link #implied}). A node may run
 * ahead of what was relayed before it notices its reader is gone, by at most {@code runAhead}
 * tokens, so it made at most {@code (P + n + runAhead) × releasesPerToken} ({@link #bound}). A
 * node's own count is settled only within those two: a node can neither make a client's budget look
 * less spent than the tokens relayed imply, nor spend more of it than what it was seen to serve
 * allows.
 */
public final class ReleaseCount {
  private ReleaseCount() {}

  /**
   * The fewest releases {@code promptTokens} and {@code relayedTokens} imply. All arguments ≥ 0.
   */
  public static long implied(long promptTokens, long relayedTokens, int releasesPerToken) {
    requireNonNegative(promptTokens, relayedTokens, 0, releasesPerToken);
    long tokensRun = promptTokens + Math.max(relayedTokens, 1) - 1;
    return Math.multiplyExact(tokensRun, (long) releasesPerToken);
  }

  /**
   * The most releases a node that was relayed {@code relayedTokens} of a {@code promptTokens}
   * prompt can have made. All arguments ≥ 0.
   */
  public static long bound(
      long promptTokens, long relayedTokens, int runAhead, int releasesPerToken) {
    requireNonNegative(promptTokens, relayedTokens, runAhead, releasesPerToken);
    return Math.multiplyExact(promptTokens + relayedTokens + runAhead, (long) releasesPerToken);
  }

  /**
   * The releases to settle to for a node's claim: {@code claimed} within [{@link #implied}, {@link
   * #bound}]. All arguments ≥ 0 (a negative claim counts as 0).
   */
  public static long settled(
      long claimed, long promptTokens, long relayedTokens, int runAhead, int releasesPerToken) {
    long low = implied(promptTokens, relayedTokens, releasesPerToken);
    long high = Math.max(low, bound(promptTokens, relayedTokens, runAhead, releasesPerToken));
    return Math.clamp(Math.max(0, claimed), low, high);
  }

  private static void requireNonNegative(long prompt, long relayed, int runAhead, int perToken) {
    if (prompt < 0 || relayed < 0 || runAhead < 0 || perToken < 0) {
      throw new IllegalArgumentException("counts must be non-negative");
    }
  }
}
