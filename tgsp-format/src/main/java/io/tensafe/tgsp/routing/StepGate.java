package io.tensafe.tgsp.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * The keyword step-gate for {@code model: "auto"}: picks one adapter per request from the prompt
 * text, once, before any token is generated.
 *
 * <p>Policy (documented in docs/adr/0009-keyword-step-gate.md):
 *
 * <ul>
 *   <li>The gate reads the request's texts in order (the caller's order: the latest user message,
 *       then earlier user messages from the latest back, then system messages) and routes on the
 *       first text in which some candidate is chosen; later texts are read only when the earlier
 *       ones choose nothing.
 *   <li>Texts and keywords are split into words as {@link PromptWords} says; a keyword of several
 *       words is a phrase and matches where its words appear consecutively. Words of scripts
 *       written without spaces (Chinese, Japanese, Thai, ...) match as substrings of such runs.
 *   <li>A candidate's keywords are its distinct ones that are not {@link StopWords} (a manifest
 *       lists at most 64). It is <b>eligible</b> with one match, or with two when it lists more
 *       than {@value #SHORT_LIST} keywords: one match among many says little, so listing many
 *       common words does not take prompts that no focused adapter matches.
 *   <li>An eligible candidate's <b>score</b> does not depend on how many keywords it lists: the
 *       number of them that match, counting at most {@value #MAX_COUNTED_MATCHES}, over {@value
 *       #MAX_COUNTED_MATCHES}, in (0, 1]. A short list gains nothing over a broad one that matches
 *       the same keywords.
 *   <li><b>Near ties</b>, the candidates within one match of the best score ({@link #NEAR_TIE}),
 *       are broken by {@link TieBreak}: the lowest price when all are priced in one currency, then
 *       the higher score, then the rarer matched keywords, then in turn; never by age, so a newer
 *       adapter is not always second. A list shaped to match one more word of a prompt than a
 *       broader adapter therefore wins only by being cheaper, which the client gains from.
 *   <li>With no candidate chosen in any text, the configured default adapter.
 * </ul>
 *
 * <p>Callers pass only the adapters the API key may use (and within its price cap). Stateless and
 * thread-safe.
 */
public final class StepGate {
  /** Texts longer than this many characters are routed on their first this-many characters. */
  public static final int MAX_ROUTED_CHARS = 64 * 1024;

  /** Matches of one candidate beyond this many do not add to its score. */
  public static final int MAX_COUNTED_MATCHES = 3;

  /** A candidate listing more keywords than this needs two matches to be chosen. */
  public static final int SHORT_LIST = 16;

  /**
   * Candidates whose score is within this of the best are near ties, which the lower price decides:
   * one match, 1/{@value #MAX_COUNTED_MATCHES}.
   */
  public static final double NEAR_TIE = 1.0 / MAX_COUNTED_MATCHES;

  private static final double EPS = 1e-12;

  private StepGate() {}

  /** Routes one {@code prompt}; ties that reach rotation go to the first tied candidate. */
  public static RouteDecision route(
      String prompt, List<GateCandidate> candidates, String defaultAdapterId) {
    return route(List.of(new RoutedText("the prompt", prompt)), candidates, defaultAdapterId, 0);
  }

  /**
   * Routes on {@code texts}, in their order, among {@code candidates}.
   *
   * @param defaultAdapterId the adapter used when nothing matches
   * @param rotation any number that advances by one per request (the caller's counter): which of
   *     the candidates still tied after rarity and price wins, in turn
   */
  public static RouteDecision route(
      List<RoutedText> texts,
      List<GateCandidate> candidates,
      String defaultAdapterId,
      long rotation) {
    // Keywords are split once per request, not once per text read.
    List<Prepared> prepared = candidates.stream().map(Prepared::of).toList();
    for (RoutedText text : texts) {
      RouteDecision decision = routeOne(text, prepared, rotation);
      if (decision != null) {
        return decision;
      }
    }
    return new RouteDecision(
        defaultAdapterId,
        null,
        RouteDecision.Reason.NO_MATCH,
        List.of(),
        "no keyword of an allowed adapter matched; default adapter " + defaultAdapterId);
  }

  /** A keyword as written (stripped) and its words as the gate matches them. */
  record Keyword(String spelling, List<String> phrase) {}

  /** A candidate with its counted keywords split into words. */
  record Prepared(GateCandidate candidate, List<Keyword> counted) {
    static Prepared of(GateCandidate c) {
      return new Prepared(c, StepGate.counted(c.keywords()));
    }
  }

  /** A scored candidate of one text, with the keywords of it that matched. */
  record Scored(Prepared prepared, List<Keyword> matched, double score) {
    GateCandidate candidate() {
      return prepared.candidate();
    }

    List<String> spellings() {
      return matched.stream().map(Keyword::spelling).toList();
    }
  }

  private static RouteDecision routeOne(RoutedText text, List<Prepared> candidates, long rotation) {
    String t = text.text();
    List<String> words =
        PromptWords.of(t.length() > MAX_ROUTED_CHARS ? t.substring(0, MAX_ROUTED_CHARS) : t);
    List<Scored> scored = new ArrayList<>();
    double top = 0;
    for (Prepared candidate : candidates) {
      List<Keyword> matched =
          candidate.counted().stream().filter(k -> occurs(k.phrase(), words)).toList();
      int needed = candidate.counted().size() > SHORT_LIST ? 2 : 1;
      if (matched.size() < needed) {
        continue;
      }
      double score = Math.min(matched.size(), MAX_COUNTED_MATCHES) / (double) MAX_COUNTED_MATCHES;
      scored.add(new Scored(candidate, matched, score));
      top = Math.max(top, score);
    }
    double nearTie = top - NEAR_TIE - EPS;
    List<Scored> best = scored.stream().filter(x -> x.score() >= nearTie).toList();
    if (best.isEmpty()) {
      return null;
    }
    String where = " in " + text.label();
    if (best.size() == 1) {
      Scored winner = best.get(0);
      return new RouteDecision(
          winner.candidate().adapterId(),
          winner.candidate().version(),
          RouteDecision.Reason.KEYWORDS,
          winner.spellings(),
          winner.matched().size()
              + " keyword(s) matched"
              + where
              + ": "
              + String.join(", ", winner.spellings()));
    }
    return TieBreak.decide(best, candidates, rotation, where);
  }

  /** The keywords that count: distinct (by their words), not stop-words, non-blank. */
  private static List<Keyword> counted(List<String> keywords) {
    List<Keyword> counted = new ArrayList<>();
    List<List<String>> seen = new ArrayList<>();
    for (String keyword : keywords) {
      List<String> phrase = PromptWords.ofKeyword(keyword);
      if (phrase.isEmpty() || seen.contains(phrase) || StopWords.isStopKeyword(keyword)) {
        continue;
      }
      seen.add(phrase);
      counted.add(new Keyword(keyword.strip(), phrase));
    }
    return counted;
  }

  /** The distinct keywords (first spelling, manifest order) whose words occur in {@code words}. */
  static List<String> matchedKeywords(List<String> words, List<String> keywords) {
    List<String> matched = new ArrayList<>();
    List<List<String>> seen = new ArrayList<>();
    for (String keyword : keywords) {
      List<String> phrase = PromptWords.ofKeyword(keyword);
      if (phrase.isEmpty() || seen.contains(phrase)) {
        continue;
      }
      seen.add(phrase);
      if (occurs(phrase, words)) {
        matched.add(keyword.strip());
      }
    }
    return matched;
  }

  private static boolean occurs(List<String> phrase, List<String> words) {
    for (int start = 0; start + phrase.size() <= words.size(); start++) {
      boolean all = true;
      for (int i = 0; i < phrase.size() && all; i++) {
        all = PromptWords.matches(words.get(start + i), phrase.get(i));
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /** The words of {@code text} as the gate splits them (see {@link PromptWords}). */
  static List<String> words(String text) {
    return PromptWords.of(text);
  }
}
