package io.tensafe.marketplace.web;

import io.tensafe.marketplace.dashboard.AdminOverview;
import io.tensafe.marketplace.dashboard.AdminOverview.Day;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The admin overview as the page shows it: the headline figures and one chart per series, all from
 * {@link AdminOverview} (charge ledger, node registry, gateway meters).
 *
 * @param days the period's length in UTC days, today included (1..90)
 * @param revenue per currency: today's and the period's charges, and the platform's share
 * @param series one row per day (oldest first) with requests, tokens and charges per currency
 */
public record OverviewPage(
    AdminOverview figures,
    int days,
    List<Revenue> revenue,
    List<DayRow> series,
    List<String> currencies,
    BarChart requestsChart,
    BarChart tokensChart,
    List<BarChart> revenueCharts) {

  /** The periods the page offers, in days. */
  public List<Integer> periods() {
    return List.of(1, 7, 14, 30, 90);
  }

  /** More than 1% of this instance's requests failed: the tile is highlighted. */
  public boolean errorRateHigh() {
    return figures.gateway().errorRate() > 0.01;
  }

  /**
   * The first-token p99 as the tile writes it: the histogram bucket bound that holds it, "no
   * streams yet" before any, or "beyond the largest bucket" when the meters cannot bound it.
   */
  public String firstTokenP99() {
    double p99 = figures.gateway().firstTokenP99Millis();
    if (figures.gateway().streams() == 0) {
      return "no streams yet";
    }
    return Double.isNaN(p99) ? "beyond the largest bucket" : "≤ " + Formats.fixed(p99, 0) + " ms";
  }

  /** One currency's revenue; money in micro-units. */
  public record Revenue(
      String currency, long todayMicros, long periodMicros, long periodPlatformMicros) {}

  /** One day of the series, summed over currencies except the per-currency charges. */
  public record DayRow(
      LocalDate date, long requests, long tokens, Map<String, Long> amountMicrosByCurrency) {
    public long amount(String currency) {
      return amountMicrosByCurrency.getOrDefault(currency, 0L);
    }
  }

  static OverviewPage of(AdminOverview figures, int days) {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    TreeSet<String> currencies = new TreeSet<>();
    Map<LocalDate, long[]> counts = new TreeMap<>();
    Map<LocalDate, Map<String, Long>> amounts = new TreeMap<>();
    for (int i = days - 1; i >= 0; i--) {
      counts.put(today.minusDays(i), new long[2]);
      amounts.put(today.minusDays(i), new TreeMap<>());
    }
    Map<String, long[]> revenue = new TreeMap<>();
    for (Day day : figures.days()) {
      currencies.add(day.currency());
      long[] c = counts.computeIfAbsent(day.date(), d -> new long[2]);
      c[0] += day.requests();
      c[1] += day.promptTokens() + day.completionTokens();
      amounts
          .computeIfAbsent(day.date(), d -> new TreeMap<>())
          .merge(day.currency(), day.amountMicros(), Long::sum);
      long[] r = revenue.computeIfAbsent(day.currency(), k -> new long[3]);
      if (day.date().equals(today)) {
        r[0] += day.amountMicros();
      }
      r[1] += day.amountMicros();
      r[2] += day.platformMicros();
    }
    List<DayRow> rows = new ArrayList<>();
    List<BarChart.Bar> requests = new ArrayList<>();
    List<BarChart.Bar> tokens = new ArrayList<>();
    counts.forEach(
        (date, c) -> {
          rows.add(new DayRow(date, c[0], c[1], Map.copyOf(amounts.get(date))));
          requests.add(new BarChart.Bar(date.toString(), c[0]));
          tokens.add(new BarChart.Bar(date.toString(), c[1]));
        });
    List<BarChart> revenueCharts = new ArrayList<>();
    for (String currency : currencies) {
      List<BarChart.Bar> bars = new ArrayList<>();
      amounts.forEach(
          (date, m) -> bars.add(new BarChart.Bar(date.toString(), m.getOrDefault(currency, 0L))));
      revenueCharts.add(
          new BarChart(
              "revenue-" + currency.toLowerCase(Locale.ROOT),
              "Revenue per day (" + currency + ")",
              bars,
              v -> Formats.money((long) v)));
    }
    List<Revenue> revenueRows = new ArrayList<>();
    revenue.forEach((currency, r) -> revenueRows.add(new Revenue(currency, r[0], r[1], r[2])));
    return new OverviewPage(
        figures,
        days,
        List.copyOf(revenueRows),
        List.copyOf(rows),
        List.copyOf(currencies),
        new BarChart("requests", "Charged requests per day", requests, Formats::quantity),
        new BarChart("tokens", "Tokens per day (prompt + completion)", tokens, Formats::quantity),
        List.copyOf(revenueCharts));
  }
}
