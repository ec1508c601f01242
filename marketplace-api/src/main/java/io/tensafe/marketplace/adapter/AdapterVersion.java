package io.tensafe.marketplace.adapter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** One uploaded, verified package of an adapter, with the manifest fields the catalogue needs. */
@Entity
@Table(name = "adapter_version")
public class AdapterVersion {
  @Id public UUID id;

  @Column(name = "adapter_id")
  public UUID adapterId;

  public String version;

  @Column(name = "version_major")
  public int versionMajor;

  @Column(name = "version_minor")
  public int versionMinor;

  @Column(name = "version_patch")
  public int versionPatch;

  @Column(name = "package_id")
  public UUID packageId;

  @Column(name = "signing_key_id")
  @JdbcTypeCode(SqlTypes.CHAR)
  public String signingKeyId;

  @Column(name = "fleet_id")
  public UUID fleetId;

  @Column(name = "base_model")
  public String baseModel;

  public int rank;
  public BigDecimal alpha;
  public String scaling;

  @Column(name = "target_modules")
  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] targetModules;

  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] keywords;

  public String domain;
  public String licence;

  @Column(name = "dp_policy_id")
  public UUID dpPolicyId;

  /** The signed manifest, as JSON. */
  @JdbcTypeCode(SqlTypes.JSON)
  public String manifest;

  @Column(name = "package_sha256")
  @JdbcTypeCode(SqlTypes.CHAR)
  public String packageSha256;

  @Column(name = "package_bytes")
  public long packageBytes;

  /** draft, published, unpublished or suspended. */
  public String state;

  @Column(name = "uploaded_at")
  public OffsetDateTime uploadedAt;

  @Column(name = "uploaded_by")
  public UUID uploadedBy;

  @Column(name = "published_at")
  public OffsetDateTime publishedAt;
}
