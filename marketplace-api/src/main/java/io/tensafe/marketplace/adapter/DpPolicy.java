package io.tensafe.marketplace.adapter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.util.UUID;

/** A DP policy as a signed manifest declares it (see docs/tgsp-v2.md §2). */
@Entity
@Table(name = "dp_policy")
public class DpPolicy {
  @Id public UUID id;

  @Column(name = "clip_norm")
  public BigDecimal clipNorm;

  @Column(name = "noise_multiplier")
  public BigDecimal noiseMultiplier;

  public BigDecimal delta;

  @Column(name = "epsilon_budget_per_period")
  public BigDecimal epsilonBudgetPerPeriod;

  @Column(name = "period_days")
  public int periodDays;
}
