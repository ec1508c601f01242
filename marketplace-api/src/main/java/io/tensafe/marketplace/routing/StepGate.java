package io.tensafe.marketplace.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The keyword step-gate for {@code model: "auto"}: picks one adapter per request from the prompt
 * text, once, before any token is generated.
 *
 * <p>Policy (documented in docs/adr/0009-keyword-step-gate.md):
 *
 * <ul>
 *   <li>The prompt and every keyword are split into words: maximal runs of Unicode letters and
 *       digits, lower-cased with {@link Locale#ROOT}. A keyword of several words is a phrase.
 *   <li>A keyword matches where its words appear consecutively in the prompt's words; a prompt word
 *       also matches a keyword word that it extends by a plural "s" or "es" ("stocks" matches
 *       "stock"). Nothing matches inside a word: "investigate" does not match "invest", nor
 *       "embankment" "bank".
 *   <li>A candidate's keywords are its distinct ones that are not {@link StopWords} (a manifest
 *       lists at most 64). Its score is the number of those that match, counting at most {@value
 *       #MAX_COUNTED_MATCHES}, divided by the square root of how many it has: listing more keywords
 *       widens what an adapter matches but lowers what each match is worth, and no list can score
 *       more than {@value #MAX_COUNTED_MATCHES} matches, so stuffing does not pay.
 *   <li>A candidate whose score is below {@value #MIN_SCORE} (one match among more than 16
 *       keywords) is not chosen.
 *   <li>The strict maximum wins. Equal maxima go to the candidate that comes first in the list,
 *       which callers order by registration (first published first).
 *   <li>With no candidate chosen, the configured default adapter.
 * </ul>
 *
 * <p>Callers pass only the adapters the API key may use (and within its price cap). Stateless and
 * thread-safe.
 */
public final class StepGate {
  /** Prompts longer than this many characters are routed on their first this-many characters. */
  public static final int MAX_ROUTED_CHARS = 64 * 1024;

  /** Matches of one candidate beyond this many do not add to its score. */
  public static final int MAX_COUNTED_MATCHES = 3;

  /** The least score that routes a prompt to a candidate: one match among 16 keywords. */
  public static final double MIN_SCORE = 0.25;

  private StepGate() {}

  /**
   * Routes {@code prompt} among {@code candidates}.
   *
   * @param defaultAdapterId the adapter used when nothing matches
   */
  public static RouteDecision route(
      String prompt, List<GateCandidate> candidates, String defaultAdapterId) {
    List<String> words =
        words(prompt.length() > MAX_ROUTED_CHARS ? prompt.substring(0, MAX_ROUTED_CHARS) : prompt);
    GateCandidate best = null;
    List<String> bestMatched = List.of();
    double bestScore = 0;
    boolean tie = false;
    for (GateCandidate candidate : candidates) {
      List<String> counted = countedKeywords(candidate.keywords());
      List<String> matched = matchedKeywords(words, counted);
      if (matched.isEmpty()) {
        continue;
      }
      double score = Math.min(matched.size(), MAX_COUNTED_MATCHES) / Math.sqrt(counted.size());
      if (score < MIN_SCORE - 1e-12) {
        continue;
      }
      if (score > bestScore + 1e-12) {
        best = candidate;
        bestMatched = matched;
        bestScore = score;
        tie = false;
      } else if (Math.abs(score - bestScore) <= 1e-12) {
        tie = true;
      }
    }
    if (best == null) {
      return new RouteDecision(
          defaultAdapterId,
          null,
          RouteDecision.Reason.NO_MATCH,
          List.of(),
          "no keyword of an allowed adapter matched; default adapter " + defaultAdapterId);
    }
    String list = String.join(", ", bestMatched);
    return tie
        ? new RouteDecision(
            best.adapterId(),
            best.version(),
            RouteDecision.Reason.KEYWORDS_TIE_BY_REGISTRATION,
            bestMatched,
            "tie at "
                + bestMatched.size()
                + " keyword(s) ("
                + list
                + "); the earliest registered adapter wins")
        : new RouteDecision(
            best.adapterId(),
            best.version(),
            RouteDecision.Reason.KEYWORDS,
            bestMatched,
            bestMatched.size() + " keyword(s) matched: " + list);
  }

  /** The keywords that count: distinct (by their words), not stop-words, non-blank. */
  static List<String> countedKeywords(List<String> keywords) {
    List<String> counted = new ArrayList<>();
    List<List<String>> seen = new ArrayList<>();
    for (String keyword : keywords) {
      List<String> phrase = words(keyword);
      if (phrase.isEmpty() || seen.contains(phrase) || StopWords.isStopKeyword(keyword)) {
        continue;
      }
      seen.add(phrase);
      counted.add(keyword);
    }
    return counted;
  }

  /** The distinct keywords (first spelling, manifest order) whose words occur in {@code words}. */
  static List<String> matchedKeywords(List<String> words, List<String> keywords) {
    List<String> matched = new ArrayList<>();
    List<List<String>> seen = new ArrayList<>();
    for (String keyword : keywords) {
      List<String> phrase = words(keyword);
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
        all = wordMatches(words.get(start + i), phrase.get(i));
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  private static boolean wordMatches(String promptWord, String keywordWord) {
    if (!promptWord.startsWith(keywordWord)) {
      return false;
    }
    String rest = promptWord.substring(keywordWord.length());
    return rest.isEmpty() || rest.equals("s") || rest.equals("es");
  }

  /** Maximal runs of letters and digits, lower-cased. */
  static List<String> words(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    text.codePoints()
        .forEach(
            cp -> {
              if (Character.isLetterOrDigit(cp)) {
                current.appendCodePoint(cp);
              } else if (!current.isEmpty()) {
                words.add(current.toString().toLowerCase(Locale.ROOT));
                current.setLength(0);
              }
            });
    if (!current.isEmpty()) {
      words.add(current.toString().toLowerCase(Locale.ROOT));
    }
    return words;
  }
}
