package io.tensafe.node.adapter;

/** The adapter version does not exist for this node (unknown id, version or fleet). */
public final class UnknownAdapterException extends Exception {
  public UnknownAdapterException(String message) {
    super(message);
  }
}
