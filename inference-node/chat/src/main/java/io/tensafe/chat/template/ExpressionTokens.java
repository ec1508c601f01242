package io.tensafe.chat.template;

import io.tensafe.chat.template.ChatTemplateException.Reason;
import java.util.ArrayList;
import java.util.List;

/** The tokens of one tag's inside: names, string and number literals, operators. */
final class ExpressionTokens {
  enum Type {
    NAME,
    STRING,
    INTEGER,
    FLOAT,
    OPERATOR,
    END
  }

  record Token(Type type, String text) {
    boolean is(String operator) {
      return type == Type.OPERATOR && text.equals(operator);
    }

    boolean isName(String name) {
      return type == Type.NAME && text.equals(name);
    }
  }

  private static final List<String> OPERATORS =
      List.of(
          "//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "(", ")", "[",
          "]", "{", "}", ".", ",", ":", "|", "=");

  private final List<Token> tokens;
  private final int line;
  private int next;

  private ExpressionTokens(List<Token> tokens, int line) {
    this.tokens = tokens;
    this.line = line;
  }

  static ExpressionTokens of(String text, int line) throws ChatTemplateException {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'' || c == '"') {
        StringBuilder s = new StringBuilder();
        i = readString(text, i, s, line);
        out.add(new Token(Type.STRING, s.toString()));
      } else if (Character.isDigit(c)) {
        int start = i;
        while (i < text.length() && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        boolean fraction =
            i + 1 < text.length() && text.charAt(i) == '.' && Character.isDigit(text.charAt(i + 1));
        if (fraction) {
          i++;
          while (i < text.length() && Character.isDigit(text.charAt(i))) {
            i++;
          }
        }
        out.add(
            new Token(
                fraction ? Type.FLOAT : Type.INTEGER, text.substring(start, i).replace("_", "")));
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < text.length()
            && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        out.add(new Token(Type.NAME, text.substring(start, i)));
      } else {
        String operator = null;
        for (String op : OPERATORS) {
          if (text.startsWith(op, i)) {
            operator = op;
            break;
          }
        }
        if (operator == null) {
          throw new ChatTemplateException(
              Reason.SYNTAX, "chat template line " + line + ": unexpected character '" + c + "'");
        }
        out.add(new Token(Type.OPERATOR, operator));
        i += operator.length();
      }
    }
    out.add(new Token(Type.END, ""));
    return new ExpressionTokens(out, line);
  }

  private static int readString(String text, int start, StringBuilder out, int line)
      throws ChatTemplateException {
    char quote = text.charAt(start);
    for (int i = start + 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == quote) {
        return i + 1;
      }
      if (c == '\\' && i + 1 < text.length()) {
        char e = text.charAt(++i);
        switch (e) {
          case 'n' -> out.append('\n');
          case 't' -> out.append('\t');
          case 'r' -> out.append('\r');
          case '0' -> out.append('\0');
          case '\\', '\'', '"' -> out.append(e);
          case 'u' -> {
            if (i + 4 >= text.length()) {
              throw new ChatTemplateException(
                  Reason.SYNTAX, "chat template line " + line + ": short \\u escape");
            }
            out.append((char) Integer.parseInt(text.substring(i + 1, i + 5), 16));
            i += 4;
          }
          default -> out.append('\\').append(e);
        }
      } else {
        out.append(c);
      }
    }
    throw new ChatTemplateException(
        Reason.SYNTAX, "chat template line " + line + ": a string literal is never closed");
  }

  Token peek() {
    return tokens.get(next);
  }

  Token peekAhead(int n) {
    return tokens.get(Math.min(next + n, tokens.size() - 1));
  }

  Token take() {
    Token t = tokens.get(next);
    if (t.type() != Type.END) {
      next++;
    }
    return t;
  }

  boolean takeIf(String operator) {
    if (peek().is(operator)) {
      next++;
      return true;
    }
    return false;
  }

  boolean takeIfName(String name) {
    if (peek().isName(name)) {
      next++;
      return true;
    }
    return false;
  }

  void expect(String operator) throws ChatTemplateException {
    if (!takeIf(operator)) {
      throw syntax("expected '" + operator + "', found '" + peek().text() + "'");
    }
  }

  String expectName() throws ChatTemplateException {
    Token t = take();
    if (t.type() != Type.NAME) {
      throw syntax("expected a name, found '" + t.text() + "'");
    }
    return t.text();
  }

  void expectEnd() throws ChatTemplateException {
    if (peek().type() != Type.END) {
      throw syntax("unexpected '" + peek().text() + "'");
    }
  }

  int line() {
    return line;
  }

  ChatTemplateException syntax(String message) {
    return new ChatTemplateException(Reason.SYNTAX, "chat template line " + line + ": " + message);
  }
}
