package io.tensafe.node.config;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The fleet's private key of a node connected to a marketplace, read from {@code
 * tensafe.node.fleet-key-file}: the node proves fleet membership with it and decrypts the packages
 * sealed to its fleet. The node owns the key; it never leaves the node.
 */
public final class FleetKeyFile {
  private FleetKeyFile() {}

  /**
   * The key {@code config} names.
   *
   * @throws IllegalStateException if no file is configured or it cannot be read as a fleet key
   */
  public static FleetKeyPair read(NodeConfig config) {
    Path file =
        config
            .fleetKeyFile()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "a node connected to a marketplace needs tensafe.node.fleet-key-file"));
    try {
      return KeyFiles.readFleetPrivate(file);
    } catch (IOException | TgspException e) {
      throw new IllegalStateException(
          "cannot read the fleet key " + file + ": " + e.getMessage(), e);
    }
  }
}
