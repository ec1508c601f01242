package io.tensafe.marketplace.problem;

/**
 * One line saying why something failed, for logs and problem details: never "null". An exception
 * without a message (a refused connection often has none) is named by its class and the first cause
 * that says more, e.g. {@code "ConnectException (connection refused)"}.
 */
public final class Causes {
  private Causes() {}

  /** Whether {@code t} or one of its causes is {@code wanted}. */
  public static boolean any(Throwable t, java.util.function.Predicate<Throwable> wanted) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (wanted.test(c)) {
        return true;
      }
    }
    return false;
  }

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
