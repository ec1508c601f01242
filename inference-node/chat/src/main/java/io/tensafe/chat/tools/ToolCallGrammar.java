package io.tensafe.chat.tools;

import io.tensafe.chat.constraint.OutputLanguage;
import io.tensafe.chat.json.JsonGrammar;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The language of forced tool calls ({@code tool_choice: "required"} or a named function): one or
 * more call blocks as Qwen's chat templates write them, and nothing else,
 *
 * <pre>{@code
 * <tool_call>
 * {"name": "NAME", "arguments": ARGUMENTS}
 * </tool_call>
 * }</pre>
 *
 * where NAME is one of the callable functions and ARGUMENTS a value of that function's {@code
 * parameters} schema ({@link JsonGrammar}, the JSON mode's machinery); further blocks follow after
 * one newline while {@link #maxCalls} allows. So every answer that ends by itself parses, through
 * {@link ToolCallStream}, into 1 to {@link #maxCalls} calls whose arguments match their schemas.
 * Immutable and thread-safe.
 *
 * <p>Invariant: every function's arguments grammar admits at least one value ({@link JsonGrammar}'s
 * own invariant), so every prefix {@link ToolCallPrefix} accepts can be completed.
 */
public final class ToolCallGrammar implements OutputLanguage {
  /** What opens a call, up to its name's first char. */
  static final String OPENING = ToolCallStream.OPEN + "\n{\"name\": \"";

  /** What follows the name's closing quote, up to the arguments' first char. */
  static final String MIDDLE = ", \"arguments\": ";

  /** What closes a call, from the closing brace of the call's object. */
  static final String CLOSING = "}\n" + ToolCallStream.CLOSE;

  private final String[] names;
  private final JsonGrammar[] arguments;
  private final int maxCalls;

  /**
   * @param callable each callable function's name (1 to 64 of {@code [a-zA-Z0-9_-]}, distinct) and
   *     its arguments' language
   * @param maxCalls the most calls an answer holds, ≥ 1
   * @throws IllegalArgumentException for no function, a bad or repeated name, or maxCalls < 1
   */
  public ToolCallGrammar(List<Callable> callable, int maxCalls) {
    if (callable.isEmpty()) {
      throw new IllegalArgumentException("forced tool calls need at least one function");
    }
    if (maxCalls < 1) {
      throw new IllegalArgumentException("maxCalls must be >= 1, was " + maxCalls);
    }
    List<Callable> sorted = new ArrayList<>(callable);
    sorted.sort(Comparator.comparing(Callable::name));
    names = new String[sorted.size()];
    arguments = new JsonGrammar[sorted.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = sorted.get(i).name();
      arguments[i] = sorted.get(i).arguments();
      if (i > 0 && names[i].equals(names[i - 1])) {
        throw new IllegalArgumentException("function " + names[i] + " is offered twice");
      }
    }
    this.maxCalls = maxCalls;
  }

  /**
   * A function the model may call.
   *
   * @param name 1 to 64 of {@code [a-zA-Z0-9_-]}, so written in JSON without escapes
   * @param arguments the language of its arguments (its {@code parameters} schema's)
   */
  public record Callable(String name, JsonGrammar arguments) {
    public Callable {
      if (name == null || !name.matches("[a-zA-Z0-9_-]{1,64}")) {
        throw new IllegalArgumentException("a function name is 1 to 64 of [a-zA-Z0-9_-]");
      }
      java.util.Objects.requireNonNull(arguments, "arguments");
    }
  }

  @Override
  public ToolCallPrefix start() {
    return new ToolCallPrefix(this);
  }

  /** The callable names, sorted (so those sharing a prefix are contiguous). */
  String[] names() {
    return names;
  }

  JsonGrammar arguments(int function) {
    return arguments[function];
  }

  /** The most calls an answer holds. */
  public int maxCalls() {
    return maxCalls;
  }

  @Override
  public String toString() {
    return "tool calls (" + String.join(", ", names) + ", at most " + maxCalls + ")";
  }
}
