package io.tensafe.node.adapter;

/**
 * An adapter that this node cannot serve: malformed, unverifiable, or not fit for its base model.
 */
public final class AdapterRejectedException extends Exception {
  public AdapterRejectedException(String message) {
    super(message);
  }

  public AdapterRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
