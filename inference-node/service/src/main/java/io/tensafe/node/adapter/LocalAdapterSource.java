package io.tensafe.node.adapter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Adapters an operator placed on disk as {@code <root>/<id>/<version>/} PEFT folders (for demos and
 * development). They carry no signed DP policy, so no input noise is applied for them, and their
 * usage reports say so ({@code dp_releases} 0).
 */
public final class LocalAdapterSource implements AdapterSource {
  private final Path root;

  public LocalAdapterSource(Path root) {
    this.root = root;
  }

  @Override
  public OpenedAdapter open(AdapterKey key) throws UnknownAdapterException {
    Path folder = root.resolve(key.id()).resolve(key.version());
    if (!Files.isDirectory(folder)) {
      throw new UnknownAdapterException("no adapter " + key + " under " + root);
    }
    return new OpenedAdapter(folder, Optional.empty(), Optional.empty());
  }

  @Override
  public String describe() {
    return "local folder " + root;
  }
}
