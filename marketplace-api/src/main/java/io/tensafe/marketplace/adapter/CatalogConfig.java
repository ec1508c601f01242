package io.tensafe.marketplace.adapter;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Set;

/** What the catalogue accepts ({@code tensafe.catalog.*}). */
@ConfigMapping(prefix = "tensafe.catalog")
public interface CatalogConfig {
  /** ISO 4217 codes prices may be set in. */
  Set<String> currencies();

  /** Base models adapters may be uploaded for (Hugging Face ids). */
  Set<String> baseModels();

  /** The least notice a price rise must give clients. */
  @WithDefault("P7D")
  Duration priceRiseNotice();
}
