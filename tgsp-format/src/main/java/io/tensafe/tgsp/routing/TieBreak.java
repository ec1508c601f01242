package io.tensafe.tgsp.routing;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Breaks a step-gate near tie (several candidates within {@link StepGate#NEAR_TIE} of the best
 * score) by a rule that is fair over time, never by age:
 *
 * <ol>
 *   <li><b>Price.</b> If all are priced in one currency, the lowest prompt plus completion price
 *       per 1k tokens wins: the client gets the cheaper of two near-equal answers, and a creator
 *       gains nothing from a keyword list shaped to edge out a broader adapter.
 *   <li><b>Score.</b> Among those still tied, the strictly highest score wins.
 *   <li><b>Rarity.</b> Then each matched keyword is worth 1/k, k the number of candidates that list
 *       it; the highest sum wins. A keyword only one adapter lists says more about the prompt than
 *       one every adapter lists.
 *   <li><b>Rotation.</b> The rest take turns: the caller's request counter modulo their number
 *       picks one, in the candidates' order, so over many requests each wins an equal share.
 * </ol>
 */
final class TieBreak {
  private static final double EPS = 1e-9;

  private TieBreak() {}

  static RouteDecision decide(
      List<StepGate.Scored> tied, List<StepGate.Prepared> all, long rotation, String where) {
    double top = tied.stream().mapToDouble(StepGate.Scored::score).max().orElseThrow();
    String scoreLine = "near tie of " + tied.size() + " adapters at score " + round(top) + where;
    List<StepGate.Scored> rest = tied;
    String currency = rest.get(0).candidate().currency();
    if (currency != null
        && rest.stream().allMatch(s -> Objects.equals(currency, s.candidate().currency()))) {
      long lowest =
          rest.stream().mapToLong(s -> s.candidate().microsPer1kTokens()).min().orElseThrow();
      List<StepGate.Scored> cheapest =
          rest.stream().filter(s -> s.candidate().microsPer1kTokens() == lowest).toList();
      if (cheapest.size() == 1) {
        return decision(
            cheapest.get(0),
            RouteDecision.Reason.KEYWORDS_TIE_BY_PRICE,
            scoreLine + "; the lowest price wins");
      }
      rest = cheapest;
    }
    double best = rest.stream().mapToDouble(StepGate.Scored::score).max().orElseThrow();
    List<StepGate.Scored> highest = rest.stream().filter(s -> s.score() > best - EPS).toList();
    if (highest.size() == 1) {
      return decision(
          highest.get(0),
          RouteDecision.Reason.KEYWORDS,
          scoreLine + "; the highest score wins among the cheapest");
    }
    Map<List<String>, Long> listing =
        all.stream()
            .flatMap(p -> p.counted().stream())
            .collect(Collectors.groupingBy(StepGate.Keyword::phrase, Collectors.counting()));
    Map<StepGate.Scored, Double> rarity = new IdentityHashMap<>();
    highest.forEach(s -> rarity.put(s, rarity(s, listing)));
    double topRarity = Collections.max(rarity.values());
    List<StepGate.Scored> rarest =
        highest.stream().filter(s -> rarity.get(s) > topRarity - EPS).toList();
    if (rarest.size() == 1) {
      return decision(
          rarest.get(0),
          RouteDecision.Reason.KEYWORDS_TIE_BY_RARITY,
          scoreLine + "; the rarest matched keywords win");
    }
    StepGate.Scored turn = rarest.get((int) Math.floorMod(rotation, (long) rarest.size()));
    return decision(
        turn,
        RouteDecision.Reason.KEYWORDS_TIE_BY_ROTATION,
        scoreLine + "; " + rarest.size() + " equal adapters take turns");
  }

  /** Σ over the matched keywords of 1 / (candidates listing it). */
  private static double rarity(StepGate.Scored s, Map<List<String>, Long> listing) {
    return s.matched().stream()
        .mapToDouble(k -> 1.0 / Math.max(1, listing.getOrDefault(k.phrase(), 1L)))
        .sum();
  }

  private static RouteDecision decision(
      StepGate.Scored winner, RouteDecision.Reason reason, String why) {
    return new RouteDecision(
        winner.candidate().adapterId(),
        winner.candidate().version(),
        reason,
        winner.spellings(),
        why + " (" + String.join(", ", winner.spellings()) + ")");
  }

  private static String round(double score) {
    return String.format(java.util.Locale.ROOT, "%.3f", score);
  }
}
