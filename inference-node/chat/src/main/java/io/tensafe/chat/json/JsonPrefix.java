package io.tensafe.chat.json;

import io.tensafe.chat.constraint.OutputPrefix;

/**
 * Where a text stands in a {@link JsonGrammar}'s language, fed one char at a time: a pushdown
 * automaton whose stack is a few int arrays, so that {@link #copyFrom} costs a handful of array
 * copies and checking a candidate token is a copy and a few {@link #feed} calls, with no
 * allocation. Not thread-safe; one per generation (and one scratch copy per checker).
 *
 * <p>Invariants: after {@link #feed} returned true, the text fed so far is a prefix of at least one
 * value of the language ({@link JsonGrammar}'s invariant and the depth and length limits being
 * checked before a container or a number part is opened); after it returned false, this prefix is
 * dead: every later feed returns false and {@link #complete} is false, until {@link #copyFrom}.
 *
 * <p>The language, beyond the schema's: whitespace between tokens, at most {@link
 * SchemaLimits#MAX_WHITESPACE_RUN} chars in a row, before the value but never after it; numbers of
 * at most {@link SchemaLimits#MAX_NUMBER_CHARS} chars; objects and arrays nested at most {@link
 * SchemaLimits#MAX_VALUE_DEPTH} deep; a declared object's properties in their declared order, each
 * optional one present or left out, no others; property names and enum values written exactly as
 * their JSON text (no escapes where none are needed).
 */
public final class JsonPrefix implements OutputPrefix {
  private static final int V_START = 0;
  private static final int ROOT_START = 1;
  private static final int ROOT_DONE = 2;
  private static final int O_OPEN = 3;
  private static final int O_KEY = 4;
  private static final int O_AFTER_KEY = 5;
  private static final int O_COLON = 6;
  private static final int O_AFTER_VALUE = 7;
  private static final int O_COMMA = 8;
  private static final int A_OPEN = 9;
  private static final int A_AFTER_VALUE = 10;
  private static final int A_COMMA = 11;
  private static final int STR = 12;
  private static final int LIT = 13;
  private static final int N_MINUS = 14;
  private static final int N_ZERO = 15;
  private static final int N_INT = 16;
  private static final int N_DOT = 17;
  private static final int N_FRAC = 18;
  private static final int N_E = 19;
  private static final int N_ESIGN = 20;
  private static final int N_EXP = 21;

  private static final int CONSUMED = 0;
  private static final int REJECT = 1;

  /** The top value is complete and cannot take the char: pop it, offer the char to its parent. */
  private static final int RETRY = 2;

  /** A member was pushed: offer the same char to it. */
  private static final int PUSHED = 3;

  private static final int FRAMES = SchemaLimits.MAX_VALUE_DEPTH + 2;

  private final JsonGrammar grammar;
  // One frame per open value, frame 0 the root. node: its schema node; mode: one of the above;
  // a: object: the next property index; literal: the first candidate; string: escape state;
  // number: chars so far. b: object: the chosen property; literal: past the last candidate.
  // p: object key / literal: chars matched. mask: object key: candidate properties.
  private final int[] node = new int[FRAMES];
  private final int[] mode = new int[FRAMES];
  private final int[] a = new int[FRAMES];
  private final int[] b = new int[FRAMES];
  private final int[] p = new int[FRAMES];
  private final long[] mask = new long[FRAMES];
  private int depth;
  private int whitespace;
  private boolean dead;

  JsonPrefix(JsonGrammar grammar) {
    this.grammar = grammar;
    mode[0] = ROOT_START;
    node[0] = -1;
    depth = 1;
  }

  @Override
  public JsonPrefix copy() {
    JsonPrefix c = new JsonPrefix(grammar);
    c.copyFrom(this);
    return c;
  }

  /** Makes this prefix equal to {@code other}, which must be of the same grammar. */
  @Override
  public void copyFrom(OutputPrefix o) {
    if (!(o instanceof JsonPrefix other) || other.grammar != grammar) {
      throw new IllegalArgumentException("a prefix of another grammar");
    }
    int n = other.depth;
    System.arraycopy(other.node, 0, node, 0, n);
    System.arraycopy(other.mode, 0, mode, 0, n);
    System.arraycopy(other.a, 0, a, 0, n);
    System.arraycopy(other.b, 0, b, 0, n);
    System.arraycopy(other.p, 0, p, 0, n);
    System.arraycopy(other.mask, 0, mask, 0, n);
    depth = n;
    whitespace = other.whitespace;
    dead = other.dead;
  }

  @Override
  public boolean feed(char c) {
    if (dead) {
      return false;
    }
    if (!isWhitespace(c)) {
      whitespace = 0;
    }
    while (true) {
      int r = step(c);
      if (r == CONSUMED) {
        return true;
      }
      if (r == REJECT) {
        dead = true;
        return false;
      }
      if (r == RETRY) {
        depth--;
      }
    }
  }

  @Override
  public boolean complete() {
    if (dead) {
      return false;
    }
    return depth == 1 ? mode[0] == ROOT_DONE : depth == 2 && completeable(1);
  }

  /** Values open, the root frame included (1: nothing open). For tests. */
  int depth() {
    return depth;
  }

  @Override
  public boolean dead() {
    return dead;
  }

  private boolean completeable(int d) {
    return switch (mode[d]) {
      case N_ZERO, N_INT, N_FRAC, N_EXP -> true;
      case LIT -> grammar.node(node[d]).literals()[a[d]].length() == p[d];
      default -> false;
    };
  }

  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
  }

  private int whitespace() {
    if (whitespace >= SchemaLimits.MAX_WHITESPACE_RUN) {
      return REJECT;
    }
    whitespace++;
    return CONSUMED;
  }

  private int push(int id, int firstMode) {
    if (depth >= FRAMES) {
      return REJECT;
    }
    node[depth] = id;
    mode[depth] = firstMode;
    a[depth] = 0;
    b[depth] = 0;
    p[depth] = 0;
    mask[depth] = 0;
    depth++;
    return firstMode == V_START ? PUSHED : CONSUMED;
  }

  private int pop() {
    depth--;
    return CONSUMED;
  }

  private int step(char c) {
    int d = depth - 1;
    int m = mode[d];
    return switch (m) {
      case ROOT_START -> {
        if (isWhitespace(c)) {
          yield whitespace();
        }
        mode[d] = ROOT_DONE;
        yield push(0, V_START);
      }
      case ROOT_DONE -> REJECT;
      case V_START -> start(d, c);
      case LIT -> literal(d, c);
      case STR -> string(d, c);
      case O_OPEN, O_KEY, O_AFTER_KEY, O_COLON, O_AFTER_VALUE, O_COMMA -> object(d, m, c);
      case A_OPEN, A_AFTER_VALUE, A_COMMA -> array(d, m, c);
      default -> number(d, m, c);
    };
  }

  private int start(int d, char c) {
    JsonGrammar.Node n = grammar.node(node[d]);
    String[] lit = n.literals();
    for (String l : lit) {
      if (l.charAt(0) == c) {
        mode[d] = LIT;
        a[d] = 0;
        b[d] = lit.length;
        p[d] = 0;
        return literal(d, c);
      }
    }
    int t = n.types();
    if (c == '{' && (t & JsonGrammar.OBJECT) != 0 && d <= SchemaLimits.MAX_VALUE_DEPTH) {
      mode[d] = O_OPEN;
      a[d] = 0;
      return CONSUMED;
    }
    if (c == '[' && (t & JsonGrammar.ARRAY) != 0 && d <= SchemaLimits.MAX_VALUE_DEPTH) {
      mode[d] = A_OPEN;
      return CONSUMED;
    }
    if (c == '"' && (t & JsonGrammar.STRING) != 0) {
      mode[d] = STR;
      a[d] = 0;
      return CONSUMED;
    }
    if ((t & (JsonGrammar.NUMBER | JsonGrammar.INTEGER)) != 0 && (c == '-' || isDigit(c))) {
      a[d] = 0;
      mode[d] = N_MINUS; // a number's start reads as after an optional minus sign
      return c == '-' ? numberTo(d, N_MINUS, false) : number(d, N_MINUS, c);
    }
    return REJECT;
  }

  private int literal(int d, char c) {
    String[] lit = grammar.node(node[d]).literals();
    int lo = a[d];
    int hi = b[d];
    int pos = p[d];
    int i = lo;
    while (i < hi && !(lit[i].length() > pos && lit[i].charAt(pos) == c)) {
      i++;
    }
    if (i == hi) {
      return lit[lo].length() == pos ? RETRY : REJECT;
    }
    int j = i + 1;
    while (j < hi && lit[j].length() > pos && lit[j].charAt(pos) == c) {
      j++;
    }
    a[d] = i;
    b[d] = j;
    p[d] = pos + 1;
    if (j - i == 1 && lit[i].length() == pos + 1) {
      return pop();
    }
    return CONSUMED;
  }

  private int string(int d, char c) {
    int e = a[d];
    if (e == 0) {
      if (c == '"') {
        return pop();
      }
      if (c == '\\') {
        a[d] = 1;
        return CONSUMED;
      }
      return c < 0x20 ? REJECT : CONSUMED;
    }
    if (e == 1) {
      if (c == 'u') {
        a[d] = 2;
        return CONSUMED;
      }
      if ("\"\\/bfnrt".indexOf(c) >= 0) {
        a[d] = 0;
        return CONSUMED;
      }
      return REJECT;
    }
    if (!(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
      return REJECT;
    }
    a[d] = e == 5 ? 0 : e + 1;
    return CONSUMED;
  }

  private int object(int d, int m, char c) {
    JsonGrammar.Node n = grammar.node(node[d]);
    boolean declared = n.keys() != null;
    if (m == O_KEY) {
      return key(d, n, c);
    }
    if (isWhitespace(c)) {
      return whitespace();
    }
    boolean canKey = !declared || a[d] < n.keys().length;
    boolean canClose = !declared || n.nextRequired()[a[d]] == n.keys().length;
    switch (m) {
      case O_OPEN, O_AFTER_VALUE -> {
        if (c == '}' && canClose) {
          return pop();
        }
        if (m == O_AFTER_VALUE) {
          if (c == ',' && canKey) {
            mode[d] = O_COMMA;
            return CONSUMED;
          }
          return REJECT;
        }
        return c == '"' && canKey ? startKey(d, n) : REJECT;
      }
      case O_COMMA -> {
        return c == '"' ? startKey(d, n) : REJECT;
      }
      case O_AFTER_KEY -> {
        if (c == ':') {
          mode[d] = O_COLON;
          return CONSUMED;
        }
        return REJECT;
      }
      default -> {
        mode[d] = O_AFTER_VALUE;
        return push(declared ? n.children()[b[d]] : grammar.any, V_START);
      }
    }
  }

  private int startKey(int d, JsonGrammar.Node n) {
    if (n.keys() == null) {
      mode[d] = O_AFTER_KEY;
      return push(grammar.any, STR);
    }
    int from = a[d];
    int to = Math.min(n.nextRequired()[from], n.keys().length - 1);
    long window = 0;
    for (int i = from; i <= to; i++) {
      window |= 1L << i;
    }
    mask[d] = window;
    p[d] = 0;
    mode[d] = O_KEY;
    return CONSUMED;
  }

  private int key(int d, JsonGrammar.Node n, char c) {
    String[] keys = n.keys();
    int pos = p[d];
    long candidates = mask[d];
    long narrowed = 0;
    for (long rest = candidates; rest != 0; rest &= rest - 1) {
      int i = Long.numberOfTrailingZeros(rest);
      String k = keys[i];
      if (c == '"' && k.length() == pos) {
        b[d] = i;
        a[d] = i + 1;
        mode[d] = O_AFTER_KEY;
        return CONSUMED;
      }
      if (k.length() > pos && k.charAt(pos) == c) {
        narrowed |= 1L << i;
      }
    }
    if (narrowed == 0) {
      return REJECT;
    }
    mask[d] = narrowed;
    p[d] = pos + 1;
    return CONSUMED;
  }

  private int array(int d, int m, char c) {
    if (isWhitespace(c)) {
      return whitespace();
    }
    if (m == A_AFTER_VALUE) {
      if (c == ',') {
        mode[d] = A_COMMA;
        return CONSUMED;
      }
      return c == ']' ? pop() : REJECT;
    }
    if (m == A_OPEN && c == ']') {
      return pop();
    }
    mode[d] = A_AFTER_VALUE;
    return push(grammar.node(node[d]).items(), V_START);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private int number(int d, int m, char c) {
    boolean integer = (grammar.node(node[d]).types() & JsonGrammar.NUMBER) == 0;
    boolean digit = isDigit(c);
    boolean exponent = (c == 'e' || c == 'E') && !integer;
    int next =
        switch (m) {
          case N_MINUS -> c == '0' ? N_ZERO : digit ? N_INT : -1;
          case N_ZERO -> c == '.' && !integer ? N_DOT : exponent ? N_E : -1;
          case N_INT -> digit ? N_INT : c == '.' && !integer ? N_DOT : exponent ? N_E : -1;
          case N_DOT, N_ESIGN -> digit ? (m == N_DOT ? N_FRAC : N_EXP) : -1;
          case N_FRAC -> digit ? N_FRAC : exponent ? N_E : -1;
          case N_E -> c == '+' || c == '-' ? N_ESIGN : digit ? N_EXP : -1;
          case N_EXP -> digit ? N_EXP : -1;
          default -> throw new IllegalStateException("mode " + m);
        };
    boolean completeable = completeable(d);
    if (next < 0) {
      return completeable ? RETRY : REJECT;
    }
    boolean nextCompleteable = next == N_ZERO || next == N_INT || next == N_FRAC || next == N_EXP;
    int fit = numberTo(d, next, nextCompleteable);
    return fit == REJECT && completeable ? RETRY : fit;
  }

  /** Moves to {@code next} if the number stays within its length limit (room to complete it). */
  private int numberTo(int d, int next, boolean nextCompleteable) {
    int length = a[d] + 1;
    int limit = SchemaLimits.MAX_NUMBER_CHARS - (nextCompleteable ? 0 : 1);
    if (length > limit) {
      return REJECT;
    }
    a[d] = length;
    mode[d] = next;
    return CONSUMED;
  }
}
