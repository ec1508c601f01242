package io.tensafe.client.session;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.privatemode.SitePlan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Binds a session to the client's model folder before any frame leaves: the adapter's manifest
 * names its base model's {@code config.json} by SHA-256 (when it does, the folder's must match),
 * and every site of the plan must exist in the folder's model with the widths the plan gives.
 */
public final class BaseModelBinding {
  private final String configSha256;
  private final ModelShape shape;

  /**
   * @param modelDir the client's model folder (its {@code config.json} is hashed once)
   */
  public BaseModelBinding(Path modelDir, ModelShape shape) throws IOException {
    this.configSha256 = sha256(Files.readAllBytes(modelDir.resolve("config.json")));
    this.shape = shape;
  }

  /** The folder's {@code config.json} SHA-256, lower-case hex. */
  public String configSha256() {
    return configSha256;
  }

  /**
   * Checks the session's base model and plan against the folder.
   *
   * @throws IllegalStateException naming the mismatch
   */
  public void check(Optional<String> expectedSha256, SitePlan plan) {
    expectedSha256.ifPresent(
        expected -> {
          if (!expected.equalsIgnoreCase(configSha256)) {
            throw new IllegalStateException(
                "the adapter was trained on a base model whose config.json has SHA-256 "
                    + expected
                    + "; this client's model folder has "
                    + configSha256
                    + ": point --model-dir at the adapter's base model");
          }
        });
    if (!plan.rings().equals(SitePlan.ringsOf(shape))) {
      throw new IllegalStateException(
          "the node's base model needs rings "
              + plan.rings()
              + "; this client's model ("
              + shape
              + ") needs "
              + SitePlan.ringsOf(shape));
    }
    for (SitePlan.Group g : plan.groups()) {
      for (SitePlan.Site s : g.sites()) {
        String path = s.path();
        String[] parts = path.split("\\.");
        int[] widths =
            parts.length == 5 && parts[0].equals("model") && parts[1].equals("layers")
                ? shape.linearWidths(parts[4]).orElse(null)
                : null;
        int layer = parts.length == 5 ? parseLayer(parts[2]) : -1;
        if (widths == null
            || layer < 0
            || layer >= shape.layers()
            || widths[0] != s.inputWidth()
            || widths[1] != s.outputWidth()) {
          throw new IllegalStateException(
              "the adapter's site "
                  + path
                  + " ("
                  + s.inputWidth()
                  + " → "
                  + s.outputWidth()
                  + ") does not exist in this client's model ("
                  + shape
                  + ")");
        }
      }
    }
  }

  private static int parseLayer(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
