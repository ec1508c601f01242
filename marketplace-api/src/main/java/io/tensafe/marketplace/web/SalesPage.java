package io.tensafe.marketplace.web;

import io.tensafe.marketplace.dashboard.DashboardQueries.CreatorDay;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A creator's sales page: per adapter and currency, the period's totals and a chart of the daily
 * payout; all from the charge ledger. Money in micro-units.
 */
public record SalesPage(DayRange period, List<AdapterSeries> adapters) {

  /** One adapter in one currency over the period. */
  public record AdapterSeries(
      String adapterId,
      String currency,
      long requests,
      long tokens,
      long amountMicros,
      long payoutMicros,
      BarChart payoutChart,
      BarChart tokensChart) {}

  static SalesPage of(DayRange period, List<CreatorDay> days) {
    Map<String, List<CreatorDay>> byKey = new TreeMap<>();
    for (CreatorDay d : days) {
      byKey.computeIfAbsent(d.adapterId() + " " + d.currency(), k -> new ArrayList<>()).add(d);
    }
    List<AdapterSeries> out = new ArrayList<>();
    int n = 0;
    for (List<CreatorDay> series : byKey.values()) {
      CreatorDay first = series.getFirst();
      Map<LocalDate, CreatorDay> byDate = new TreeMap<>();
      series.forEach(d -> byDate.put(d.date(), d));
      List<BarChart.Bar> payout = new ArrayList<>();
      List<BarChart.Bar> tokens = new ArrayList<>();
      long requests = 0;
      long tokenSum = 0;
      long amount = 0;
      long paid = 0;
      for (LocalDate d = period.first(); !d.isAfter(period.last()); d = d.plusDays(1)) {
        CreatorDay day = byDate.get(d);
        payout.add(new BarChart.Bar(d.toString(), day == null ? 0 : day.payoutMicros()));
        tokens.add(new BarChart.Bar(d.toString(), day == null ? 0 : day.tokens()));
        if (day != null) {
          requests += day.requests();
          tokenSum += day.tokens();
          amount += day.amountMicros();
          paid += day.payoutMicros();
        }
      }
      String currency = first.currency();
      n++;
      out.add(
          new AdapterSeries(
              first.adapterId(),
              currency,
              requests,
              tokenSum,
              amount,
              paid,
              new BarChart(
                  "payout-" + n,
                  "Payout per day: " + first.adapterId() + " (" + currency + ")",
                  payout,
                  v -> Formats.money((long) v)),
              new BarChart(
                  "tokens-" + n,
                  "Tokens per day: " + first.adapterId(),
                  tokens,
                  Formats::quantity)));
    }
    return new SalesPage(period, List.copyOf(out));
  }
}
