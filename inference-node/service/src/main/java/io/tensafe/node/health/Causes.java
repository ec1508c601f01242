package io.tensafe.node.health;

/**
 * One line saying why something failed, for the node's log: never "null". An exception without a
 * message (a refused connection often has none) is named by its class and the first cause that says
 * more, e.g. {@code "ConnectException (Connection refused)"}.
 */
public final class Causes {
  private Causes() {}

  /** A non-empty description of {@code t}. */
  public static String describe(Throwable t) {
    if (t == null) {
      return "unknown cause";
    }
    if (t.getMessage() != null && !t.getMessage().isBlank()) {
      return t.getMessage();
    }
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        return t.getClass().getSimpleName() + " (" + c.getMessage() + ")";
      }
    }
    return t.getClass().getSimpleName() + " (no detail given)";
  }
}
