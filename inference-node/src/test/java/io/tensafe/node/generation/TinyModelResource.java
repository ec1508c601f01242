package io.tensafe.node.generation;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;

/** Generates the tiny model into a temporary folder and points the node at it. */
public class TinyModelResource implements QuarkusTestResourceLifecycleManager {
  private Path dir;

  @Override
  public Map<String, String> start() {
    try {
      System.setProperty("ai.djl.offline", "true");
      dir = Files.createTempDirectory("node-model");
      ModelGenerator.write(ModelShape.TINY, DType.BF16, 5, dir, s -> {});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of("tensafe.node.model-dir", dir.toString(), "tensafe.node.max-new-tokens", "64");
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
