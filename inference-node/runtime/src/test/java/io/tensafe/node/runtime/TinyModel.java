package io.tensafe.node.runtime;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** A generated tiny model in a temporary folder, with its decoder, for the runtime tests. */
public record TinyModel(Path dir, QwenDecoder decoder) implements AutoCloseable {

  public static TinyModel generate(DType dtype, long seed) throws IOException {
    return generate(dtype, seed, ModelGenerator.Arch.QWEN3);
  }

  public static TinyModel generate(DType dtype, long seed, ModelGenerator.Arch arch)
      throws IOException {
    System.setProperty("ai.djl.offline", "true");
    Path dir = Files.createTempDirectory("tiny-model");
    ModelGenerator.write(ModelShape.TINY, dtype, seed, dir, s -> {}, arch);
    return new TinyModel(dir, new QwenDecoder(ModelFolder.load(dir)));
  }

  @Override
  public void close() throws IOException {
    decoder.close();
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
