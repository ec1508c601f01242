package io.tensafe.chat.template;

import java.util.List;

/** A statement of a compiled template. Immutable. */
sealed interface TemplateNode {
  /** Literal text, written as is. */
  record Text(String text) implements TemplateNode {}

  /** {@code {{ expression }}}: the expression's string form. */
  record Output(Expression expression, int line) implements TemplateNode {}

  /** One {@code if}/{@code elif} branch. */
  record Branch(Expression condition, List<TemplateNode> body) {}

  /** {@code if ... elif ... else ... endif}; {@code otherwise} is empty without an else. */
  record If(List<Branch> branches, List<TemplateNode> otherwise) implements TemplateNode {}

  /**
   * {@code for targets in iterable [if filter] ... else ... endfor}; {@code filter} may be null;
   * {@code otherwise} runs when no item passed the filter.
   */
  record For(
      List<String> targets,
      Expression iterable,
      Expression filter,
      List<TemplateNode> body,
      List<TemplateNode> otherwise,
      int line)
      implements TemplateNode {}

  /** {@code set name = value} in the current scope. */
  record Set(String name, Expression value, int line) implements TemplateNode {}

  /** {@code set namespace.attribute = value}: the only assignment that outlives a loop body. */
  record SetAttribute(String name, String attribute, Expression value, int line)
      implements TemplateNode {}

  /** {@code break} (Jinja's loop-controls extension, which Hugging Face enables). */
  record Break() implements TemplateNode {}

  /** {@code continue}. */
  record Continue() implements TemplateNode {}
}
