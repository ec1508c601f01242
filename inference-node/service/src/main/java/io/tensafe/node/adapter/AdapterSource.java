package io.tensafe.node.adapter;

import java.io.IOException;

/** Where a node gets adapter versions from: the marketplace, or a local folder of PEFT folders. */
public interface AdapterSource {
  /**
   * Makes {@code key} available as a PEFT folder.
   *
   * @throws UnknownAdapterException if the source has no such version
   * @throws AdapterRejectedException if the version exists but fails verification or checks
   * @throws IOException if the source cannot be reached or read (worth retrying later)
   */
  OpenedAdapter open(AdapterKey key)
      throws IOException, UnknownAdapterException, AdapterRejectedException;

  /** A short description for logs, e.g. "marketplace http://..." */
  String describe();
}
