package io.tensafe.marketplace.adapter;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A product line of one creator; {@code adapterRef} is the model name clients ask for. */
@Entity
public class Adapter {
  @Id public UUID id;

  public UUID creatorId;

  public String adapterRef;

  public OffsetDateTime createdAt;

  public OffsetDateTime suspendedAt;
}
