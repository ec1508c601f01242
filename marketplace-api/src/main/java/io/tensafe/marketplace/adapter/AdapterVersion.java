package io.tensafe.marketplace.adapter;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** One uploaded, verified package of an adapter, with the manifest fields the catalogue needs. */
@Entity
public class AdapterVersion {
  @Id public UUID id;

  public UUID adapterId;

  public String version;

  public int versionMajor;

  public int versionMinor;

  public int versionPatch;

  public UUID packageId;

  @JdbcTypeCode(SqlTypes.CHAR)
  public String signingKeyId;

  public UUID fleetId;

  public String baseModel;

  public int rank;
  public BigDecimal alpha;
  public String scaling;

  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] targetModules;

  @JdbcTypeCode(SqlTypes.ARRAY)
  public String[] keywords;

  public String domain;
  public String licence;

  public UUID dpPolicyId;

  /** The signed manifest, as JSON. */
  @JdbcTypeCode(SqlTypes.JSON)
  public String manifest;

  @JdbcTypeCode(SqlTypes.CHAR)
  public String packageSha256;

  public long packageBytes;

  /** draft, published, unpublished or suspended. */
  public String state;

  public OffsetDateTime uploadedAt;

  public UUID uploadedBy;

  public OffsetDateTime publishedAt;

  /**
   * From when the version serves requests that name its adapter without a version (and {@code
   * auto}), as its newest: set on every publication by {@link NewVersionNotice}; null for a version
   * not published since migration V30 (one published before then serves so already).
   */
  public OffsetDateTime newestFrom;
}
