package io.tensafe.tgsp.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How the step-gate splits text into words, and when a prompt word matches a keyword word.
 *
 * <p>A word is a maximal run of letters, digits and combining marks (so Thai or Devanagari vowel
 * signs stay inside their word), lower-cased with {@link Locale#ROOT}. Runs also break where text
 * passes between a script written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
 * Myanmar, Tibetan) and any other, so "用iPhone" is two words.
 *
 * <p>Matching: a word of a spaceless script matches a keyword word of such a script that it
 * contains ("住宅ローンの金利" contains "住宅ローン"), since such text has no spaces to split at. Any other word
 * matches a keyword word that it equals or extends by a plural "s" or "es" ("stocks" matches
 * "stock"); nothing matches inside such a word ("investigate" does not match "invest").
 */
final class PromptWords {
  private static final Set<Character.UnicodeScript> SPACELESS =
      Set.of(
          Character.UnicodeScript.HAN,
          Character.UnicodeScript.HIRAGANA,
          Character.UnicodeScript.KATAKANA,
          Character.UnicodeScript.THAI,
          Character.UnicodeScript.LAO,
          Character.UnicodeScript.KHMER,
          Character.UnicodeScript.MYANMAR,
          Character.UnicodeScript.TIBETAN);

  private PromptWords() {}

  /** The words of {@code text}, in order. */
  static List<String> of(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean currentSpaceless = false;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      boolean mark = isMark(cp);
      if (!Character.isLetterOrDigit(cp) && !(mark && !current.isEmpty())) {
        flush(current, words);
        continue;
      }
      boolean spaceless = mark ? currentSpaceless : isSpaceless(cp);
      if (!current.isEmpty() && spaceless != currentSpaceless) {
        flush(current, words);
      }
      current.appendCodePoint(cp);
      currentSpaceless = spaceless;
    }
    flush(current, words);
    return words;
  }

  /**
   * The words of a keyword: as {@link #of}, with adjacent words of spaceless scripts joined, since
   * a prompt in such a script writes them without the space a keyword may put between them.
   */
  static List<String> ofKeyword(String keyword) {
    List<String> words = new ArrayList<>();
    for (String w : of(keyword)) {
      int last = words.size() - 1;
      if (last >= 0
          && isSpaceless(w.codePointAt(0))
          && isSpaceless(words.get(last).codePointAt(0))) {
        words.set(last, words.get(last) + w);
      } else {
        words.add(w);
      }
    }
    return words;
  }

  /** Whether {@code promptWord} matches {@code keywordWord} (both from {@link #of}). */
  static boolean matches(String promptWord, String keywordWord) {
    if (isSpaceless(keywordWord.codePointAt(0))) {
      return promptWord.contains(keywordWord);
    }
    if (!promptWord.startsWith(keywordWord)) {
      return false;
    }
    String rest = promptWord.substring(keywordWord.length());
    return rest.isEmpty() || rest.equals("s") || rest.equals("es");
  }

  private static void flush(StringBuilder current, List<String> words) {
    if (!current.isEmpty()) {
      words.add(current.toString().toLowerCase(Locale.ROOT));
      current.setLength(0);
    }
  }

  private static boolean isMark(int cp) {
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK;
  }

  /** A code point of a script written without spaces, or Japanese's prolonged sound mark. */
  static boolean isSpaceless(int cp) {
    return SPACELESS.contains(Character.UnicodeScript.of(cp)) || cp == 0x30FC || cp == 0xFF70;
  }
}
