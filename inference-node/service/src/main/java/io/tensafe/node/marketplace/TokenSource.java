package io.tensafe.node.marketplace;

import java.io.IOException;

/** Bearer tokens for the node's calls to the marketplace. */
public interface TokenSource {
  /** A token valid for at least the next few seconds. */
  String token() throws IOException;

  /** Forgets a cached token (after the marketplace answered 401). */
  default void invalidate() {}
}
