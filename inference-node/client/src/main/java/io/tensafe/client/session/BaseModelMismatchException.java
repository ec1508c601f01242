package io.tensafe.client.session;

/**
 * The session's adapter does not run on this client's model folder: its manifest names another
 * {@code config.json}, the node's base model needs other rings, or a site of its plan is not a
 * module of this model with the plan's widths. The message names which, before any frame leaves.
 */
public final class BaseModelMismatchException extends Exception {
  public BaseModelMismatchException(String message) {
    super(message);
  }
}
