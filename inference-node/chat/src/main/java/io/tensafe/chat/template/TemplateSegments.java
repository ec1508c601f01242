package io.tensafe.chat.template;

import io.tensafe.chat.template.ChatTemplateException.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a template into text, {@code {{ }}} and {@code {% %}} segments, applying whitespace
 * control as Hugging Face's chat-template environment does: {@code -} on a tag strips all
 * whitespace on that side; {@code trim_blocks} drops the first newline after a statement or comment
 * tag; {@code lstrip_blocks} drops spaces and tabs between a line's start and a statement or
 * comment tag. Comments are dropped.
 */
final class TemplateSegments {
  /** One segment; {@code body} is the tag's inside without delimiters and {@code -}. */
  record Segment(Kind kind, String body, int line) {}

  enum Kind {
    TEXT,
    OUTPUT,
    STATEMENT
  }

  private TemplateSegments() {}

  static List<Segment> split(String source) throws ChatTemplateException {
    List<Segment> out = new ArrayList<>();
    int pos = 0;
    boolean stripNext = false;
    Lines lines = new Lines(source);
    while (pos <= source.length()) {
      int open = nextOpening(source, pos);
      String text = source.substring(pos, open < 0 ? source.length() : open);
      if (stripNext) {
        text = text.stripLeading();
      }
      if (open < 0) {
        addText(out, text, lines.at(pos));
        break;
      }
      char kind = source.charAt(open + 1);
      boolean minus = open + 2 < source.length() && source.charAt(open + 2) == '-';
      boolean plus = open + 2 < source.length() && source.charAt(open + 2) == '+';
      if (minus) {
        text = text.stripTrailing();
      } else if (kind != '{' && !plus) {
        text = lstripBlock(text, pos == 0 || source.charAt(pos - 1) == '\n');
      }
      addText(out, text, lines.at(pos));
      int bodyStart = open + 2 + (minus || plus ? 1 : 0);
      int line = lines.at(open);
      String closing = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
      int close =
          kind == '#' ? source.indexOf("#}", bodyStart) : closingOf(source, bodyStart, closing);
      if (close < 0) {
        throw new ChatTemplateException(
            Reason.SYNTAX,
            "chat template line "
                + line
                + ": '"
                + source.charAt(open)
                + kind
                + "' is never closed");
      }
      boolean minusAfter = close > bodyStart && source.charAt(close - 1) == '-';
      String body = source.substring(bodyStart, minusAfter ? close - 1 : close).strip();
      if (kind == '{') {
        out.add(new Segment(Kind.OUTPUT, body, line));
      } else if (kind == '%') {
        out.add(new Segment(Kind.STATEMENT, body, line));
      }
      pos = close + 2;
      stripNext = minusAfter;
      if (!minusAfter && kind != '{') {
        if (source.startsWith("\r\n", pos)) {
          pos += 2;
        } else if (source.startsWith("\n", pos)) {
          pos += 1;
        }
      }
      if (pos == source.length()) {
        break;
      }
    }
    return out;
  }

  private static void addText(List<Segment> out, String text, int line) {
    if (!text.isEmpty()) {
      out.add(new Segment(Kind.TEXT, text, line));
    }
  }

  private static int nextOpening(String s, int from) {
    for (int i = s.indexOf('{', from); i >= 0 && i + 1 < s.length(); i = s.indexOf('{', i + 1)) {
      char c = s.charAt(i + 1);
      if (c == '{' || c == '%' || c == '#') {
        return i;
      }
    }
    return -1;
  }

  /** The index of {@code closing} after {@code from}, skipping string literals. */
  private static int closingOf(String s, int from, String closing) {
    char quote = 0;
    for (int i = from; i + 1 < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (s.startsWith(closing, i)) {
        return i;
      }
    }
    return -1;
  }

  /** Drops spaces and tabs after the text's last newline when nothing else is on that line. */
  private static String lstripBlock(String text, boolean startsAtLineStart) {
    int i = text.length();
    while (i > 0 && (text.charAt(i - 1) == ' ' || text.charAt(i - 1) == '\t')) {
      i--;
    }
    boolean lineStart = i == 0 ? startsAtLineStart : text.charAt(i - 1) == '\n';
    return lineStart ? text.substring(0, i) : text;
  }

  /** 1-based line numbers of ascending positions, counted once over the source. */
  private static final class Lines {
    private final String source;
    private int index;
    private int line = 1;

    Lines(String source) {
      this.source = source;
    }

    /** The line of {@code position}; positions must not decrease between calls. */
    int at(int position) {
      for (; index < position && index < source.length(); index++) {
        if (source.charAt(index) == '\n') {
          line++;
        }
      }
      return line;
    }
  }
}
