package io.tensafe.marketplace.adapter;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.math.BigDecimal;
import java.util.UUID;

/** A DP policy as a signed manifest declares it (see docs/tgsp-v2.md §2). */
@Entity
public class DpPolicy {
  @Id public UUID id;

  public BigDecimal clipNorm;

  public BigDecimal noiseMultiplier;

  public BigDecimal delta;

  public BigDecimal epsilonBudgetPerPeriod;

  public int periodDays;
}
