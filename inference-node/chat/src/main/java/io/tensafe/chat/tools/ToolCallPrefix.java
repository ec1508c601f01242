package io.tensafe.chat.tools;

import io.tensafe.chat.constraint.OutputPrefix;
import io.tensafe.chat.json.JsonPrefix;

/**
 * Where a text stands in a {@link ToolCallGrammar}'s language, fed one char at a time: the fixed
 * text of each block matched char by char, the name narrowed over the sorted names as it is
 * written, the arguments fed to a {@link JsonPrefix} of the chosen function's schema. Not
 * thread-safe; one per generation, plus scratch copies ({@link #copyFrom} allocates only when the
 * copied prefix is in another function's arguments than this one last held).
 *
 * <p>Invariants: as {@link OutputPrefix}'s; {@link #complete} exactly after a block's closing tag;
 * {@link #calls} never exceeds the grammar's {@code maxCalls}.
 */
public final class ToolCallPrefix implements OutputPrefix {
  private static final int LITERAL = 0;
  private static final int NAME = 1;
  private static final int ARGUMENTS = 2;
  private static final int DONE = 3;

  /** The fixed texts, by the index {@link #literal} holds. */
  private static final String[] LITERALS = {
    ToolCallGrammar.OPENING,
    ToolCallGrammar.MIDDLE,
    ToolCallGrammar.CLOSING,
    "\n" + ToolCallGrammar.OPENING
  };

  private static final int OPENING = 0;
  private static final int MIDDLE = 1;
  private static final int CLOSING = 2;
  private static final int NEXT_OPENING = 3;

  private final ToolCallGrammar grammar;
  private int state = LITERAL;
  private int literal = OPENING;

  /** Chars of the literal or of the name matched so far. */
  private int position;

  /** The candidate names while in {@link #NAME}: indices [lo, hi) of the sorted names. */
  private int lo;

  private int hi;

  /** The function being called, from its name's closing quote on. */
  private int chosen = -1;

  private int calls;
  private boolean dead;

  /** The arguments' prefix, of function {@link #argumentsOf}; null before any arguments. */
  private JsonPrefix arguments;

  private int argumentsOf = -1;

  ToolCallPrefix(ToolCallGrammar grammar) {
    this.grammar = grammar;
  }

  /** Whole calls fed so far. */
  public int calls() {
    return calls;
  }

  @Override
  public boolean feed(char c) {
    if (dead) {
      return false;
    }
    if (!step(c)) {
      dead = true;
    }
    return !dead;
  }

  private boolean step(char c) {
    switch (state) {
      case LITERAL -> {
        String text = LITERALS[literal];
        if (text.charAt(position) != c) {
          return false;
        }
        position++;
        if (position == text.length()) {
          endLiteral();
        }
        return true;
      }
      case NAME -> {
        return name(c);
      }
      case ARGUMENTS -> {
        if (c == '}' && arguments.complete()) {
          // No complete JSON value goes on with '}': it closes the call's object.
          state = LITERAL;
          literal = CLOSING;
          position = 1;
          return true;
        }
        return arguments.feed(c);
      }
      default -> {
        if (c == '\n' && calls < grammar.maxCalls()) {
          state = LITERAL;
          literal = NEXT_OPENING;
          position = 1;
          return true;
        }
        return false;
      }
    }
  }

  private void endLiteral() {
    switch (literal) {
      case OPENING, NEXT_OPENING -> {
        state = NAME;
        position = 0;
        lo = 0;
        hi = grammar.names().length;
      }
      case MIDDLE -> {
        state = ARGUMENTS;
        arguments = grammar.arguments(chosen).start();
        argumentsOf = chosen;
      }
      default -> {
        state = DONE;
        calls++;
      }
    }
  }

  /** Narrows the candidate names by {@code c}, or ends the name on its closing quote. */
  private boolean name(char c) {
    String[] names = grammar.names();
    if (c == '"') {
      // Sorted, so a candidate equal to the text so far is the range's first.
      if (names[lo].length() != position) {
        return false;
      }
      chosen = lo;
      state = LITERAL;
      literal = MIDDLE;
      position = 0;
      return true;
    }
    int i = lo;
    while (i < hi && !(names[i].length() > position && names[i].charAt(position) == c)) {
      i++;
    }
    if (i == hi) {
      return false;
    }
    int j = i + 1;
    while (j < hi && names[j].length() > position && names[j].charAt(position) == c) {
      j++;
    }
    lo = i;
    hi = j;
    position++;
    return true;
  }

  @Override
  public boolean complete() {
    return !dead && state == DONE;
  }

  @Override
  public boolean dead() {
    return dead;
  }

  @Override
  public ToolCallPrefix copy() {
    ToolCallPrefix c = new ToolCallPrefix(grammar);
    c.copyFrom(this);
    return c;
  }

  @Override
  public void copyFrom(OutputPrefix o) {
    if (!(o instanceof ToolCallPrefix other) || other.grammar != grammar) {
      throw new IllegalArgumentException("a prefix of another grammar");
    }
    state = other.state;
    literal = other.literal;
    position = other.position;
    lo = other.lo;
    hi = other.hi;
    chosen = other.chosen;
    calls = other.calls;
    dead = other.dead;
    if (other.arguments != null) {
      if (arguments == null || argumentsOf != other.argumentsOf) {
        arguments = other.arguments.copy();
        argumentsOf = other.argumentsOf;
      } else {
        arguments.copyFrom(other.arguments);
      }
    }
  }
}
