package io.tensafe.marketplace.identity;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A tenant: every user, creator and API key belongs to exactly one. */
@Entity
public class Organisation {
  @Id public UUID id;
  public String slug;

  public String displayName;

  public OffsetDateTime createdAt;

  /**
   * When an admin suspended it, or null: its API keys and the nodes it operates are refused
   * (migration V31).
   */
  public OffsetDateTime suspendedAt;
}
