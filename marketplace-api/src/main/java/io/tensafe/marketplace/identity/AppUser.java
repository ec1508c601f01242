package io.tensafe.marketplace.identity;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A person, created on first contact from the OIDC subject of their token. */
@Entity
public class AppUser {
  @Id public UUID id;

  public String oidcSubject;

  public UUID organisationId;

  public String username;
  public String email;

  public OffsetDateTime createdAt;

  public OffsetDateTime suspendedAt;
}
