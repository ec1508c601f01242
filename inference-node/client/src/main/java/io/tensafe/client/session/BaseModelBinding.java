package io.tensafe.client.session;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.tgsp.peft.BaseModelShape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Binds a session to the client's model folder before any frame leaves: the adapter's manifest
 * names its base model's {@code config.json} by SHA-256 (when it does, the folder's must match),
 * the node's base model needs this model's rings, and every site of the plan is a module of this
 * model (a layer it has, in the block that holds it, not a dense MLP on a layer that routes to
 * experts) with the widths the plan gives, as an adapter is checked before it is packed.
 */
public final class BaseModelBinding {
  private final String configSha256;
  private final ModelShape shape;
  private final BaseModelShape sites;

  /**
   * @param modelDir the client's model folder (its {@code config.json} is hashed once)
   * @param shape the folder's model, as the decoder loaded it
   * @param sites the same model as adapters are checked against, with its experts if it has them
   */
  public BaseModelBinding(Path modelDir, ModelShape shape, BaseModelShape sites)
      throws IOException {
    this.configSha256 = sha256(Files.readAllBytes(modelDir.resolve("config.json")));
    this.shape = shape;
    this.sites = sites;
  }

  /** The folder's {@code config.json} SHA-256, lower-case hex. */
  public String configSha256() {
    return configSha256;
  }

  /**
   * Checks the session's base model and plan against the folder.
   *
   * @throws BaseModelMismatchException naming the mismatch
   */
  public void check(Optional<String> expectedSha256, SitePlan plan)
      throws BaseModelMismatchException {
    if (expectedSha256.isPresent() && !expectedSha256.get().equalsIgnoreCase(configSha256)) {
      throw new BaseModelMismatchException(
          "the adapter was trained on a base model whose config.json has SHA-256 "
              + expectedSha256.get()
              + "; this client's model folder has "
              + configSha256
              + ": point --model-dir at the adapter's base model");
    }
    if (!plan.rings().equals(SitePlan.ringsOf(sites))) {
      throw new BaseModelMismatchException(
          "the node's base model needs rings "
              + plan.rings()
              + "; this client's model ("
              + shape
              + ") needs "
              + SitePlan.ringsOf(sites));
    }
    Map<String, List<Long>> tensors = new LinkedHashMap<>();
    for (SitePlan.Group g : plan.groups()) {
      for (SitePlan.Site s : g.sites()) {
        tensors.put(s.path() + ".lora_A.weight", List.of((long) s.rank(), (long) s.inputWidth()));
        tensors.put(s.path() + ".lora_B.weight", List.of((long) s.outputWidth(), (long) s.rank()));
      }
    }
    List<String> problems = sites.incompatibilities(tensors);
    if (!problems.isEmpty()) {
      throw new BaseModelMismatchException(
          "the adapter's sites do not fit this client's model ("
              + shape.name()
              + "): "
              + String.join("; ", problems));
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
