package io.tensafe.marketplace.creator;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/** An organisation that sells adapters; {@code creatorRef} is its id in TGSP manifests. */
@Entity
@Table(name = "creator")
public class Creator {
  @Id public UUID id;

  @Column(name = "organisation_id")
  public UUID organisationId;

  @Column(name = "creator_ref")
  public String creatorRef;

  @Column(name = "created_at")
  public OffsetDateTime createdAt;

  @Column(name = "suspended_at")
  public OffsetDateTime suspendedAt;
}
