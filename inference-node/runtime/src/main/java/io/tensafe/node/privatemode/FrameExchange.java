package io.tensafe.node.privatemode;

import java.io.IOException;

/** Carries one client frame to the node (through the marketplace) and returns its answer. */
@FunctionalInterface
public interface FrameExchange {
  /**
   * @param frame a client frame's bytes
   * @return the answer frame's bytes
   * @throws IOException if the frame could not be delivered or was refused
   */
  byte[] exchange(byte[] frame) throws IOException;
}
