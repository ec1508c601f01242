package io.tensafe.chat.template;

import java.util.List;
import java.util.Map;

/** An expression of a compiled template. Immutable. */
sealed interface Expression {
  /** A string, integer ({@code Long}), float ({@code Double}), boolean or none ({@code null}). */
  record Literal(Object value) implements Expression {}

  record ListLiteral(List<Expression> items) implements Expression {}

  record DictLiteral(List<Expression> keys, List<Expression> values) implements Expression {}

  record Name(String name) implements Expression {}

  /** {@code target.name}: a mapping's key, or a method when called. */
  record Attribute(Expression target, String name) implements Expression {}

  /** {@code target[index]}. */
  record Item(Expression target, Expression index) implements Expression {}

  /** {@code target[start:stop:step]}; absent parts are null. */
  record Slice(Expression target, Expression start, Expression stop, Expression step)
      implements Expression {}

  /** A call of a global function ({@link Name}) or of a method ({@link Attribute}). */
  record Call(Expression callee, List<Expression> arguments, Map<String, Expression> keywords)
      implements Expression {}

  /** {@code target | name(arguments)}. */
  record Filter(
      Expression target, String name, List<Expression> arguments, Map<String, Expression> keywords)
      implements Expression {}

  /** {@code target is [not] name}. */
  record Test(Expression target, String name, boolean negated) implements Expression {}

  /** {@code not operand} or {@code -operand}. */
  record Unary(String operator, Expression operand) implements Expression {}

  /** A binary operator: or, and, comparisons, in, not in, + - * / // % and ~. */
  record Binary(String operator, Expression left, Expression right) implements Expression {}

  /** {@code then if condition else otherwise}; {@code otherwise} may be null (undefined). */
  record Conditional(Expression condition, Expression then, Expression otherwise)
      implements Expression {}
}
