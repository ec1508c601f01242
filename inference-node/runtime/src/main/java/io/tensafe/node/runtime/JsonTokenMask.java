package io.tensafe.node.runtime;

import io.tensafe.chat.constraint.OutputPrefix;

/**
 * The tokens that keep a constrained output a valid prefix of its language (a response_format's
 * JSON or forced tool calls), computed per step: each first-char group of {@link TokenTexts} is
 * checked by that char once, and only the groups whose char fits are checked token by token, on a
 * scratch copy of the prefix (no allocation per token). The end-of-sequence ids are allowed exactly
 * when the value is complete. One per generation; not thread-safe.
 */
final class JsonTokenMask {
  private final TokenTexts texts;
  private final long[] endTokens;
  private final OutputPrefix firstChar;
  private final OutputPrefix scratch;
  private final int[] allowed;

  JsonTokenMask(TokenTexts texts, long[] endTokens, OutputPrefix start) {
    this.texts = texts;
    this.endTokens = endTokens.clone();
    this.firstChar = start.copy();
    this.scratch = start.copy();
    this.allowed = new int[texts.size() + endTokens.length];
  }

  /**
   * The ids allowed after {@code prefix}, written into the array returned, {@code count[0]} of
   * them; ids of {@code vocabularySize} or more (beyond the logits) are left out.
   *
   * @return a shared buffer, valid until the next call
   */
  int[] allowed(OutputPrefix prefix, int vocabularySize, int[] count) {
    int n = 0;
    for (int g = 0; g < texts.groupCount(); g++) {
      firstChar.copyFrom(prefix);
      if (!firstChar.feed(texts.first(g))) {
        continue;
      }
      for (int id : texts.group(g)) {
        if (id >= vocabularySize) {
          break;
        }
        String t = texts.text(id);
        if (t.length() == 1) {
          allowed[n++] = id;
          continue;
        }
        scratch.copyFrom(firstChar);
        boolean fits = true;
        for (int i = 1; fits && i < t.length(); i++) {
          fits = scratch.feed(t.charAt(i));
        }
        if (fits) {
          allowed[n++] = id;
        }
      }
    }
    if (prefix.complete()) {
      for (long e : endTokens) {
        if (e < vocabularySize) {
          allowed[n++] = (int) e;
        }
      }
    }
    count[0] = n;
    return allowed;
  }
}
