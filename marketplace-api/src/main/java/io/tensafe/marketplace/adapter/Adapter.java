package io.tensafe.marketplace.adapter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A product line of one creator; {@code adapterRef} is the model name clients ask for. */
@Entity
@Table(name = "adapter")
public class Adapter {
  @Id public UUID id;

  @Column(name = "creator_id")
  public UUID creatorId;

  @Column(name = "adapter_ref")
  public String adapterRef;

  @Column(name = "created_at")
  public OffsetDateTime createdAt;

  @Column(name = "suspended_at")
  public OffsetDateTime suspendedAt;
}
