package io.tensafe.marketplace.privacy;

/**
 * How many DP releases a finished generation made, from a node's account of it. A node's model runs
 * every prompt token once (prefill) and feeds back every generated token but the last, and each
 * token it runs releases the adapter's {@code releasesPerToken} noised inputs; so a request with
 * prompt P and n ≥ 1 generated tokens made {@code (P + n − 1) × releasesPerToken}, and one stopped
 * before its first token {@code P × releasesPerToken}. The node also reports the releases it
 * counted; the larger of the two is settled, so a node's report can never make a client's budget
 * look less spent than its token counts imply.
 */
public final class ReleaseCount {
  private ReleaseCount() {}

  /**
   * The releases to settle to. Range: at least {@code reported} and at least the count implied by
   * the tokens; all arguments non-negative.
   */
  public static long settled(
      long reported, long promptTokens, long completionTokens, int releasesPerToken) {
    if (reported < 0 || promptTokens < 0 || completionTokens < 0 || releasesPerToken < 0) {
      throw new IllegalArgumentException("counts must be non-negative");
    }
    long tokensRun = promptTokens + Math.max(completionTokens, 1) - 1;
    return Math.max(reported, Math.multiplyExact(tokensRun, (long) releasesPerToken));
  }
}
