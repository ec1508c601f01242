package io.tensafe.node.generation;

import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link TinyModelResource}, as a node connected to a marketplace that is not there (a closed
 * port): registration keeps failing in the background, which is what a node between restarts of its
 * marketplace sees, and everything a connected node enforces is in force.
 */
public class ConnectedNodeResource extends TinyModelResource {
  @Override
  public Map<String, String> start() {
    Map<String, String> config = new HashMap<>(super.start());
    try {
      Path key = Files.createTempDirectory("fleet-key").resolve("fleet-private.json");
      KeyFiles.writeFleetPrivate(FleetKeyPair.generate("fleet-a", new SecureRandom()), key);
      config.put("tensafe.node.fleet-key-file", key.toString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    config.put("tensafe.node.marketplace.url", "http://127.0.0.1:9");
    config.put("tensafe.node.marketplace.token-url", "http://127.0.0.1:9/token");
    config.put("tensafe.node.marketplace.client-id", "node-test");
    config.put("tensafe.node.marketplace.client-secret", "secret");
    config.put("tensafe.node.fleet-id", "fleet-a");
    return config;
  }
}
