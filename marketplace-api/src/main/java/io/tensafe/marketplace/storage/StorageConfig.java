package io.tensafe.marketplace.storage;

import io.smallrye.config.ConfigMapping;
import java.nio.file.Path;

/** Where package files are kept and how large one may be ({@code tensafe.storage.*}). */
@ConfigMapping(prefix = "tensafe.storage")
public interface StorageConfig {
  /** The content-addressed store's root (ADR 0007); uploads stream into its {@code .incoming/}. */
  Path directory();

  /** The largest package accepted, in bytes; a larger upload is refused as soon as it passes. */
  long maxPackageBytes();
}
