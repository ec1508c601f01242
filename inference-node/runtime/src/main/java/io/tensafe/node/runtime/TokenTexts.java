package io.tensafe.node.runtime;

import io.tensafe.node.tokenizer.QwenTokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Each token id's text, decoded once per vocabulary, for constrained decoding: the ids grouped by
 * their first char, so that one check of that char rules a whole group in or out. Immutable.
 *
 * <p>Ids that can never be part of constrained output have no text here: special tokens (their text
 * is markup, not content; the end-of-sequence ids are allowed separately), ids that decode to
 * nothing (the vocabulary's padding), and ids that decode alone to U+FFFD, a part of a UTF-8
 * sequence that only its neighbours complete. So constrained output is a concatenation of whole
 * characters, and the text the grammar checks is the text the tokenizer decodes; a character that
 * only a byte-pieces sequence spells cannot be generated under a constraint.
 */
final class TokenTexts {
  /** Ids per decode call while building, bounding the temporary arrays. */
  private static final int BATCH = 8192;

  private final String[] texts;
  private final char[] firsts;
  private final int[][] groups;

  private TokenTexts(String[] texts, char[] firsts, int[][] groups) {
    this.texts = texts;
    this.firsts = firsts;
    this.groups = groups;
  }

  /** Decodes ids [0, vocabularySize) with {@code tokenizer}. */
  static TokenTexts of(QwenTokenizer tokenizer, int vocabularySize) {
    String[] texts = new String[vocabularySize];
    for (int from = 0; from < vocabularySize; from += BATCH) {
      int n = Math.min(BATCH, vocabularySize - from);
      long[] ids = new long[n];
      for (int i = 0; i < n; i++) {
        ids[i] = from + i;
      }
      String[] plain = tokenizer.decodeEach(ids, true);
      String[] all = tokenizer.decodeEach(ids, false);
      for (int i = 0; i < n; i++) {
        String t = plain[i];
        boolean usable = !t.isEmpty() && t.equals(all[i]) && t.indexOf('\uFFFD') < 0;
        texts[from + i] = usable ? t : null;
      }
    }
    return group(texts);
  }

  /** For tests: the given texts (null: unusable). */
  static TokenTexts group(String[] texts) {
    TreeMap<Character, List<Integer>> byFirst = new TreeMap<>();
    for (int id = 0; id < texts.length; id++) {
      if (texts[id] != null) {
        byFirst.computeIfAbsent(texts[id].charAt(0), k -> new ArrayList<>()).add(id);
      }
    }
    char[] firsts = new char[byFirst.size()];
    int[][] groups = new int[byFirst.size()][];
    int g = 0;
    for (var e : byFirst.entrySet()) {
      firsts[g] = e.getKey();
      groups[g] = e.getValue().stream().mapToInt(Integer::intValue).toArray();
      g++;
    }
    return new TokenTexts(texts.clone(), firsts, groups);
  }

  int size() {
    return texts.length;
  }

  /** The text of {@code id}, null when it can never be constrained output. */
  String text(int id) {
    return id < texts.length ? texts[id] : null;
  }

  int groupCount() {
    return firsts.length;
  }

  char first(int group) {
    return firsts[group];
  }

  /** Ids whose text starts with {@link #first}; ascending. */
  int[] group(int group) {
    return groups[group];
  }
}
