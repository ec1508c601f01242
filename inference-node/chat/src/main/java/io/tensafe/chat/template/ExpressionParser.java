package io.tensafe.chat.template;

import io.tensafe.chat.template.ChatTemplateException.Reason;
import io.tensafe.chat.template.ExpressionTokens.Token;
import io.tensafe.chat.template.ExpressionTokens.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Jinja2's expression grammar, with its precedence: conditional, or, and, not, comparisons and
 * {@code in}, {@code + -}, {@code ~}, {@code * / // %}, unary minus, then primaries with their
 * postfixes ({@code .name}, {@code [index or slice]}, calls) and filters and tests.
 */
final class ExpressionParser {
  private static final Set<String> COMPARISONS = Set.of("==", "!=", "<", ">", "<=", ">=");

  private final ExpressionTokens tokens;

  ExpressionParser(ExpressionTokens tokens) {
    this.tokens = tokens;
  }

  /** An expression; {@code conditional} false leaves a trailing {@code if} to a for loop. */
  Expression expression(boolean conditional) throws ChatTemplateException {
    Expression e = or();
    while (conditional && tokens.takeIfName("if")) {
      Expression condition = or();
      Expression otherwise = tokens.takeIfName("else") ? expression(true) : null;
      e = new Expression.Conditional(condition, e, otherwise);
    }
    return e;
  }

  private Expression or() throws ChatTemplateException {
    Expression e = and();
    while (tokens.takeIfName("or")) {
      e = new Expression.Binary("or", e, and());
    }
    return e;
  }

  private Expression and() throws ChatTemplateException {
    Expression e = not();
    while (tokens.takeIfName("and")) {
      e = new Expression.Binary("and", e, not());
    }
    return e;
  }

  private Expression not() throws ChatTemplateException {
    if (tokens.takeIfName("not")) {
      return new Expression.Unary("not", not());
    }
    return compare();
  }

  private Expression compare() throws ChatTemplateException {
    Expression e = sum();
    while (true) {
      Token t = tokens.peek();
      if (t.type() == Type.OPERATOR && COMPARISONS.contains(t.text())) {
        tokens.take();
        e = new Expression.Binary(t.text(), e, sum());
      } else if (t.isName("in")) {
        tokens.take();
        e = new Expression.Binary("in", e, sum());
      } else if (t.isName("not") && tokens.peekAhead(1).isName("in")) {
        tokens.take();
        tokens.take();
        e = new Expression.Binary("not in", e, sum());
      } else {
        return e;
      }
    }
  }

  private Expression sum() throws ChatTemplateException {
    Expression e = concat();
    while (tokens.peek().is("+") || tokens.peek().is("-")) {
      e = new Expression.Binary(tokens.take().text(), e, concat());
    }
    return e;
  }

  private Expression concat() throws ChatTemplateException {
    Expression e = product();
    while (tokens.takeIf("~")) {
      e = new Expression.Binary("~", e, product());
    }
    return e;
  }

  private Expression product() throws ChatTemplateException {
    Expression e = unary(true);
    while (tokens.peek().is("*")
        || tokens.peek().is("/")
        || tokens.peek().is("//")
        || tokens.peek().is("%")) {
      e = new Expression.Binary(tokens.take().text(), e, unary(true));
    }
    if (tokens.peek().is("**")) {
      throw unsupported("the '**' operator");
    }
    return e;
  }

  private Expression unary(boolean withFilters) throws ChatTemplateException {
    if (tokens.takeIf("-")) {
      Expression e = new Expression.Unary("-", unary(false));
      return withFilters ? filters(e) : e;
    }
    if (tokens.takeIf("+")) {
      return withFilters ? filters(unary(false)) : unary(false);
    }
    Expression e = postfix(primary());
    return withFilters ? filters(e) : e;
  }

  private Expression primary() throws ChatTemplateException {
    Token t = tokens.take();
    switch (t.type()) {
      case STRING -> {
        StringBuilder s = new StringBuilder(t.text());
        while (tokens.peek().type() == Type.STRING) {
          s.append(tokens.take().text());
        }
        return new Expression.Literal(s.toString());
      }
      case INTEGER -> {
        return new Expression.Literal(Long.parseLong(t.text()));
      }
      case FLOAT -> {
        return new Expression.Literal(Double.parseDouble(t.text()));
      }
      case NAME -> {
        return switch (t.text()) {
          case "true", "True" -> new Expression.Literal(Boolean.TRUE);
          case "false", "False" -> new Expression.Literal(Boolean.FALSE);
          case "none", "None" -> new Expression.Literal(null);
          default -> new Expression.Name(t.text());
        };
      }
      case OPERATOR -> {
        if (t.is("(")) {
          Expression e = expression(true);
          if (tokens.peek().is(",")) {
            List<Expression> items = new ArrayList<>(List.of(e));
            while (tokens.takeIf(",") && !tokens.peek().is(")")) {
              items.add(expression(true));
            }
            e = new Expression.ListLiteral(List.copyOf(items));
          }
          tokens.expect(")");
          return e;
        }
        if (t.is("[")) {
          List<Expression> items = new ArrayList<>();
          while (!tokens.peek().is("]")) {
            items.add(expression(true));
            if (!tokens.takeIf(",")) {
              break;
            }
          }
          tokens.expect("]");
          return new Expression.ListLiteral(List.copyOf(items));
        }
        if (t.is("{")) {
          List<Expression> keys = new ArrayList<>();
          List<Expression> values = new ArrayList<>();
          while (!tokens.peek().is("}")) {
            keys.add(expression(true));
            tokens.expect(":");
            values.add(expression(true));
            if (!tokens.takeIf(",")) {
              break;
            }
          }
          tokens.expect("}");
          return new Expression.DictLiteral(List.copyOf(keys), List.copyOf(values));
        }
        throw tokens.syntax("unexpected '" + t.text() + "'");
      }
      default -> throw tokens.syntax("an expression is missing");
    }
  }

  private Expression postfix(Expression e) throws ChatTemplateException {
    while (true) {
      if (tokens.takeIf(".")) {
        Token name = tokens.take();
        if (name.type() == Type.INTEGER) {
          e = new Expression.Item(e, new Expression.Literal(Long.parseLong(name.text())));
        } else if (name.type() == Type.NAME) {
          e = new Expression.Attribute(e, name.text());
        } else {
          throw tokens.syntax("expected a name after '.'");
        }
      } else if (tokens.takeIf("[")) {
        e = subscript(e);
      } else if (tokens.peek().is("(")) {
        e = call(e);
      } else {
        return e;
      }
    }
  }

  private Expression subscript(Expression target) throws ChatTemplateException {
    Expression start = tokens.peek().is(":") ? null : expression(true);
    if (!tokens.takeIf(":")) {
      tokens.expect("]");
      return new Expression.Item(target, start);
    }
    Expression stop = tokens.peek().is(":") || tokens.peek().is("]") ? null : expression(true);
    Expression step = null;
    if (tokens.takeIf(":") && !tokens.peek().is("]")) {
      step = expression(true);
    }
    tokens.expect("]");
    return new Expression.Slice(target, start, stop, step);
  }

  private Expression call(Expression callee) throws ChatTemplateException {
    if (callee instanceof Expression.Name n && !Builtins.FUNCTIONS.contains(n.name())) {
      throw unsupported("the function '" + n.name() + "()'");
    }
    if (callee instanceof Expression.Attribute a && !Builtins.METHODS.contains(a.name())) {
      throw unsupported("the method '." + a.name() + "()'");
    }
    if (!(callee instanceof Expression.Name) && !(callee instanceof Expression.Attribute)) {
      throw unsupported("calling an expression that is not a function or a method");
    }
    List<Expression> arguments = new ArrayList<>();
    Map<String, Expression> keywords = new LinkedHashMap<>();
    arguments(arguments, keywords);
    return new Expression.Call(callee, List.copyOf(arguments), keywords);
  }

  private void arguments(List<Expression> arguments, Map<String, Expression> keywords)
      throws ChatTemplateException {
    tokens.expect("(");
    while (!tokens.peek().is(")")) {
      if (tokens.peek().type() == Type.NAME && tokens.peekAhead(1).is("=")) {
        String name = tokens.take().text();
        tokens.take();
        keywords.put(name, expression(true));
      } else {
        arguments.add(expression(true));
      }
      if (!tokens.takeIf(",")) {
        break;
      }
    }
    tokens.expect(")");
  }

  private Expression filters(Expression e) throws ChatTemplateException {
    while (true) {
      if (tokens.takeIf("|")) {
        String name = tokens.expectName();
        if (!Builtins.FILTERS.contains(name)) {
          throw unsupported("the filter '|" + name + "'");
        }
        List<Expression> arguments = new ArrayList<>();
        Map<String, Expression> keywords = new LinkedHashMap<>();
        if (tokens.peek().is("(")) {
          arguments(arguments, keywords);
        }
        e = new Expression.Filter(e, name, List.copyOf(arguments), keywords);
      } else if (tokens.takeIfName("is")) {
        boolean negated = tokens.takeIfName("not");
        String name = tokens.take().text();
        if (!Builtins.TESTS.contains(name)) {
          throw unsupported("the test 'is " + name + "'");
        }
        e = new Expression.Test(e, name, negated);
      } else if (tokens.peek().is("(")) {
        e = call(e);
      } else {
        return e;
      }
    }
  }

  private ChatTemplateException unsupported(String construct) {
    return new ChatTemplateException(
        Reason.UNSUPPORTED,
        "chat template line "
            + tokens.line()
            + ": "
            + construct
            + " is not supported by TenSafe's template renderer");
  }
}
