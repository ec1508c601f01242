package io.tensafe.marketplace.apikey;

import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.util.UUID;

/** One adapter a scoped key may use; a key with no scope rows may use every published adapter. */
@Entity
@Table(name = "api_key_adapter")
public class ApiKeyScope {
  @EmbeddedId public Id id;

  /** (key, adapter). */
  @Embeddable
  public record Id(UUID apiKeyId, UUID adapterId) implements Serializable {}
}
