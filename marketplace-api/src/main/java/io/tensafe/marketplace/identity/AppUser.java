package io.tensafe.marketplace.identity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A person, created on first contact from the OIDC subject of their token. */
@Entity
@Table(name = "app_user")
public class AppUser {
  @Id public UUID id;

  @Column(name = "oidc_subject")
  public String oidcSubject;

  @Column(name = "organisation_id")
  public UUID organisationId;

  public String username;
  public String email;

  @Column(name = "created_at")
  public OffsetDateTime createdAt;

  @Column(name = "suspended_at")
  public OffsetDateTime suspendedAt;
}
