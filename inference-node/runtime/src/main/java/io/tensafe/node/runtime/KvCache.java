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

  /**
   * A copy of this cache in a cache of its own (the same parent), for another sequence that shares
   * these positions (a request's choices share their prompt's prefill, ADR 0044): each decodes on
   * from here without touching the other's arrays. Close it as any cache.
   */
  public KvCache fork() {
    KvCache copy = new KvCache(manager.getParentManager(), keys.length);
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != null) {
        // An arithmetic copy, new storage for certain: with duplicate() the choice decoded last,
        // on the original, read NaN logits once the first had closed its copy
        // (ChoicesAndLogprobsTest in the node service).
        copy.keys[i] = keys[i].mul(1);
        copy.keys[i].attach(copy.manager);
        copy.values[i] = values[i].mul(1);
        copy.values[i].attach(copy.manager);
      }
    }
    copy.length = length;
    return copy;
  }

  @Override
  public void close() {
    manager.close();
  }
}
