package io.tensafe.chat.template;

import io.tensafe.chat.template.ChatTemplateException.Reason;
import io.tensafe.chat.template.TemplateSegments.Kind;
import io.tensafe.chat.template.TemplateSegments.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Parses segments into statements: {@code if/elif/else}, {@code for ... in ... [if ...]/else},
 * {@code set} (a name or a namespace's attribute), {@code break}, {@code continue} and output.
 * Every other tag is refused by name ({@link Reason#UNSUPPORTED}), as are filters, tests, methods
 * and functions outside {@link Builtins}.
 */
final class TemplateParser {
  private final List<Segment> segments;
  private int next;

  private TemplateParser(List<Segment> segments) {
    this.segments = segments;
  }

  static List<TemplateNode> parse(String source) throws ChatTemplateException {
    TemplateParser parser = new TemplateParser(TemplateSegments.split(source));
    List<TemplateNode> body = parser.block(Set.of());
    if (parser.next < parser.segments.size()) {
      Segment s = parser.segments.get(parser.next);
      throw new ChatTemplateException(
          Reason.SYNTAX, "chat template line " + s.line() + ": unexpected '" + s.body() + "'");
    }
    return body;
  }

  /** Statements up to (not including) a statement tag named in {@code stops}. */
  private List<TemplateNode> block(Set<String> stops) throws ChatTemplateException {
    List<TemplateNode> body = new ArrayList<>();
    while (next < segments.size()) {
      Segment s = segments.get(next);
      if (s.kind() == Kind.TEXT) {
        body.add(new TemplateNode.Text(s.body()));
        next++;
        continue;
      }
      ExpressionTokens tokens = ExpressionTokens.of(s.body(), s.line());
      if (s.kind() == Kind.OUTPUT) {
        Expression e = new ExpressionParser(tokens).expression(true);
        tokens.expectEnd();
        body.add(new TemplateNode.Output(e, s.line()));
        next++;
        continue;
      }
      String tag = tokens.peek().text();
      if (stops.contains(tag)) {
        return body;
      }
      if (Set.of("endif", "endfor", "elif", "else").contains(tag)) {
        throw tokens.syntax("'" + tag + "' does not close the open block");
      }
      next++;
      tokens.take();
      body.add(statement(tag, tokens));
    }
    if (!stops.isEmpty()) {
      throw new ChatTemplateException(
          Reason.SYNTAX, "chat template: a block is never closed (expected " + stops + ")");
    }
    return body;
  }

  private TemplateNode statement(String tag, ExpressionTokens tokens) throws ChatTemplateException {
    return switch (tag) {
      case "if" -> ifStatement(tokens);
      case "for" -> forStatement(tokens);
      case "set" -> setStatement(tokens);
      case "break" -> {
        tokens.expectEnd();
        yield new TemplateNode.Break();
      }
      case "continue" -> {
        tokens.expectEnd();
        yield new TemplateNode.Continue();
      }
      default ->
          throw new ChatTemplateException(
              Reason.UNSUPPORTED,
              "chat template line "
                  + tokens.line()
                  + ": the '{% "
                  + tag
                  + " %}' tag is not supported by TenSafe's template renderer (supported: if, for,"
                  + " set, break, continue)");
    };
  }

  private TemplateNode ifStatement(ExpressionTokens tokens) throws ChatTemplateException {
    List<TemplateNode.Branch> branches = new ArrayList<>();
    Expression condition = new ExpressionParser(tokens).expression(true);
    tokens.expectEnd();
    List<TemplateNode> otherwise = List.of();
    while (true) {
      List<TemplateNode> body = block(Set.of("elif", "else", "endif"));
      branches.add(new TemplateNode.Branch(condition, body));
      ExpressionTokens closing = closingTag();
      String tag = closing.take().text();
      if (tag.equals("elif")) {
        condition = new ExpressionParser(closing).expression(true);
        closing.expectEnd();
        continue;
      }
      closing.expectEnd();
      if (tag.equals("else")) {
        otherwise = block(Set.of("endif"));
        closingTag().take();
      }
      return new TemplateNode.If(List.copyOf(branches), otherwise);
    }
  }

  private TemplateNode forStatement(ExpressionTokens tokens) throws ChatTemplateException {
    List<String> targets = new ArrayList<>();
    targets.add(tokens.expectName());
    while (tokens.takeIf(",")) {
      targets.add(tokens.expectName());
    }
    if (!tokens.takeIfName("in")) {
      throw tokens.syntax("expected 'in' in a for loop");
    }
    ExpressionParser expressions = new ExpressionParser(tokens);
    Expression iterable = expressions.expression(false);
    Expression filter = tokens.takeIfName("if") ? expressions.expression(true) : null;
    if (tokens.takeIfName("recursive")) {
      throw new ChatTemplateException(
          Reason.UNSUPPORTED,
          "chat template line "
              + tokens.line()
              + ": recursive loops are not"
              + " supported by TenSafe's template renderer");
    }
    tokens.expectEnd();
    List<TemplateNode> body = block(Set.of("else", "endfor"));
    List<TemplateNode> otherwise = List.of();
    if (closingTag().take().text().equals("else")) {
      otherwise = block(Set.of("endfor"));
      closingTag().take();
    }
    return new TemplateNode.For(
        List.copyOf(targets), iterable, filter, body, otherwise, tokens.line());
  }

  private TemplateNode setStatement(ExpressionTokens tokens) throws ChatTemplateException {
    String name = tokens.expectName();
    String attribute = tokens.takeIf(".") ? tokens.expectName() : null;
    if (!tokens.takeIf("=")) {
      throw new ChatTemplateException(
          Reason.UNSUPPORTED,
          "chat template line "
              + tokens.line()
              + ": only 'set name = value'"
              + " and 'set namespace.attribute = value' are supported (no block set, no tuples)");
    }
    Expression value = new ExpressionParser(tokens).expression(true);
    tokens.expectEnd();
    return attribute == null
        ? new TemplateNode.Set(name, value, tokens.line())
        : new TemplateNode.SetAttribute(name, attribute, value, tokens.line());
  }

  /** Consumes the statement tag that ended a block and returns its tokens (the tag name first). */
  private ExpressionTokens closingTag() throws ChatTemplateException {
    Segment s = segments.get(next++);
    return ExpressionTokens.of(s.body(), s.line());
  }
}
