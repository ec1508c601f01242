package io.tensafe.node.generation;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.tensafe.node.adapter.PeftAdapters;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;

/**
 * Generates the tiny model and two versions of a random adapter (B large enough to change the
 * output) into a temporary folder, and points the node at them, with a temporary usage outbox.
 */
public class TinyModelResource implements QuarkusTestResourceLifecycleManager {
  /** The test adapter, with versions 1.0.0 and 2.0.0 on every module of every layer. */
  static final String ADAPTER = "tiny-qa";

  private Path dir;

  @Override
  public Map<String, String> start() {
    try {
      System.setProperty("ai.djl.offline", "true");
      dir = Files.createTempDirectory("node-model");
      ModelGenerator.write(ModelShape.TINY, DType.BF16, 5, dir.resolve("tiny"), s -> {});
      for (int v = 1; v <= 2; v++) {
        LoraAdapter adapter =
            LoraAdapter.random(ModelShape.TINY, LoraAdapter.ALL_MODULES, 4, 2.0, 0.5, 100 + v);
        PeftAdapters.write(
            adapter, "tiny", dir.resolve("adapters").resolve(ADAPTER).resolve(v + ".0.0"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of(
        "tensafe.node.model-dir",
        dir.resolve("tiny").toString(),
        "tensafe.node.adapter-dir",
        dir.resolve("adapters").toString(),
        "tensafe.node.outbox-dir",
        dir.resolve("outbox").toString(),
        "tensafe.node.max-new-tokens",
        "64",
        "tensafe.node.max-concurrency",
        "24",
        "tensafe.node.max-prompt-tokens",
        "256");
  }

  @Override
  public void stop() {
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
