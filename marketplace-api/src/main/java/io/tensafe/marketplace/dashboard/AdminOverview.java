package io.tensafe.marketplace.dashboard;

import io.tensafe.marketplace.gateway.GatewayMetrics;
import java.time.LocalDate;
import java.util.List;

/**
 * What the admin overview shows: node health, recent rates and per-day series from the charge
 * ledger, and this marketplace instance's gateway figures.
 *
 * @param healthyNodes nodes with a fresh heartbeat, not suspended, with an endpoint
 * @param totalNodes every registered node
 * @param requestsPerSecond charged requests per second over the last 5 minutes (by start time)
 * @param tokensPerSecond charged prompt + completion tokens per second over the same window
 * @param days per UTC day and currency, oldest first, from {@code from} to today
 * @param gateway this instance's meters since it started ({@code GatewayMetrics})
 */
public record AdminOverview(
    long healthyNodes,
    long totalNodes,
    double requestsPerSecond,
    double tokensPerSecond,
    List<Day> days,
    GatewayMetrics.Figures gateway) {

  /**
   * One UTC day's charges in one currency.
   *
   * @param amountMicros what clients were charged, integer micro-units
   * @param platformMicros the platform's share of it
   */
  public record Day(
      LocalDate date,
      String currency,
      long requests,
      long promptTokens,
      long completionTokens,
      long amountMicros,
      long platformMicros) {}
}
