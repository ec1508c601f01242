package io.tensafe.tgsp.routing;

import java.util.List;

/**
 * What the step-gate decided for one request, recorded with its usage.
 *
 * @param adapterId the chosen adapter, or the configured default on {@link Reason#NO_MATCH}
 * @param version the chosen version; null when the default was chosen (the caller resolves it)
 * @param reason why
 * @param matched the distinct keywords of the winner found in the prompt, in manifest order
 * @param explanation one line for people: what matched and in which text, how a tie was broken, or
 *     why the default was used
 */
public record RouteDecision(
    String adapterId, String version, Reason reason, List<String> matched, String explanation) {
  public RouteDecision {
    matched = List.copyOf(matched);
  }

  /** Why an adapter was chosen. */
  public enum Reason {
    /**
     * One candidate scored above every other by more than the near-tie margin, or scored highest
     * among the cheapest of a near tie.
     */
    KEYWORDS,
    /**
     * Several candidates scored within the near-tie margin, all in one currency; the cheapest won.
     */
    KEYWORDS_TIE_BY_PRICE,
    /** Still tied after price and score; the one whose matched keywords are rarest won. */
    KEYWORDS_TIE_BY_RARITY,
    /** Still tied after price, score and rarity; the tied candidates take turns. */
    KEYWORDS_TIE_BY_ROTATION,
    /** No candidate matched any keyword: the configured default adapter. */
    NO_MATCH
  }

  /** The number of distinct keywords that matched. Range: [0, keywords of the winner]. */
  public int score() {
    return matched.size();
  }
}
