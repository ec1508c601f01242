package io.tensafe.chat.constraint;

/**
 * Where a text stands in an {@link OutputLanguage}, fed one char at a time. Not thread-safe; one
 * per generation, and scratch copies ({@link #copyFrom}) for checking candidate tokens without
 * allocating.
 *
 * <p>Invariants: after {@link #feed(char)} returned true, the text fed so far is a prefix of at
 * least one word of the language; after it returned false the prefix is dead: every later feed
 * returns false and {@link #complete} is false, until {@link #copyFrom}.
 */
public interface OutputPrefix {
  /** Feeds one char; false (and dead) when the text would no longer be a valid prefix. */
  boolean feed(char c);

  /** Feeds {@code text}; false (and dead) as soon as a char leaves the language's prefixes. */
  default boolean feed(CharSequence text) {
    for (int i = 0, n = text.length(); i < n; i++) {
      if (!feed(text.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** True when the text fed so far is a whole word of the language (it may still go on). */
  boolean complete();

  /** True once a char was refused. */
  boolean dead();

  /** A copy of this prefix. */
  OutputPrefix copy();

  /**
   * Makes this prefix equal to {@code other}.
   *
   * @throws IllegalArgumentException when {@code other} walks another language
   */
  void copyFrom(OutputPrefix other);
}
