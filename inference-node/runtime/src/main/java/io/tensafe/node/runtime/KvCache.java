package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;

/**
 * Keys and values of every position processed so far, per layer, each of shape (positions,
 * key/value heads, head dim). Owns its arrays; close it when the sequence ends. Not thread-safe:
 * one sequence, one thread.
 */
public final class KvCache implements AutoCloseable {
  final NDManager manager;
  final NDArray[] keys;
  final NDArray[] values;
  int length;

  KvCache(NDManager parent, int layers) {
    this.manager = parent.newSubManager();
    this.keys = new NDArray[layers];
    this.values = new NDArray[layers];
  }

  /** Positions cached. */
  public int length() {
    return length;
  }

  @Override
  public void close() {
    manager.close();
  }
}
