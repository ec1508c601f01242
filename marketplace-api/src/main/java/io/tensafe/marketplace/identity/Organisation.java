package io.tensafe.marketplace.identity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A tenant: every user, creator and API key belongs to exactly one. */
@Entity
@Table(name = "organisation")
public class Organisation {
  @Id public UUID id;
  public String slug;

  @Column(name = "display_name")
  public String displayName;

  @Column(name = "created_at")
  public OffsetDateTime createdAt;
}
