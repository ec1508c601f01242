package io.tensafe.marketplace.creator;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;

/** An organisation that sells adapters; {@code creatorRef} is its id in TGSP manifests. */
@Entity
public class Creator {
  @Id public UUID id;

  public UUID organisationId;

  public String creatorRef;

  public OffsetDateTime createdAt;

  public OffsetDateTime suspendedAt;
}
