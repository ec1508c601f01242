package io.tensafe.chat.constraint;

/**
 * A language that constrained decoding keeps a generation inside: a JSON value of a {@code
 * response_format} ({@link io.tensafe.chat.json.JsonGrammar}) or forced tool calls ({@link
 * io.tensafe.chat.tools.ToolCallGrammar}). Immutable and thread-safe; one {@link OutputPrefix} per
 * generation walks it.
 *
 * <p>Invariant: every prefix a {@link OutputPrefix} of this language accepts can be completed, so a
 * decoder that only draws tokens the prefix accepts never reaches a dead end.
 */
public interface OutputLanguage {
  /** A fresh prefix: nothing fed yet. */
  OutputPrefix start();

  /** True when {@code text} is a whole word of this language. */
  default boolean matches(CharSequence text) {
    OutputPrefix p = start();
    return p.feed(text) && p.complete();
  }
}
