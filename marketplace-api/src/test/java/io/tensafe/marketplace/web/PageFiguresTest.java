package io.tensafe.marketplace.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.marketplace.problem.ApiProblem;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the pages write money, draw charts and read periods; no server needed. */
class PageFiguresTest {
  @Test
  void money_isExact_neverRounded() {
    assertEquals("0.00", Formats.money(0));
    assertEquals("1.00", Formats.money(1_000_000));
    assertEquals("0.000001", Formats.money(1));
    assertEquals("12.3456", Formats.money(12_345_600));
    assertEquals("-0.50", Formats.money(-500_000));
    assertEquals("USD 9007199254.740991", Formats.money(9_007_199_254_740_991L, "USD"));
  }

  @Test
  void quantity_writesWholeCountsWithoutDecimals() {
    assertEquals("1,500", Formats.quantity(1500));
    assertEquals("1.5", Formats.quantity(1.5));
  }

  @Test
  void chart_escapesLabels_andDescribesItsRange() {
    BarChart chart =
        new BarChart(
            "c",
            "Sales <of> \"x\" & y",
            List.of(new BarChart.Bar("2026-11-01", 2), new BarChart.Bar("<script>", 6)),
            Formats::quantity);
    String svg = chart.svg().getValue();
    assertFalse(svg.contains("<script>"), svg);
    assertTrue(svg.contains("&lt;script&gt;"));
    assertTrue(svg.contains("<title id=\"c-t\">Sales &lt;of&gt; &quot;x&quot; &amp; y</title>"));
    assertTrue(svg.contains("2 bars from 2026-11-01 to &lt;script&gt;; highest 6, total 8."), svg);
    assertEquals(2, svg.split("<rect ").length - 1);
  }

  @Test
  void chart_withoutData_saysSo_andDrawsNoBar() {
    String svg = new BarChart("e", "Empty", List.of(), Formats::quantity).svg().getValue();
    assertTrue(svg.contains("No data."));
    assertFalse(svg.contains("<rect "));
  }

  @Test
  void dayRange_coversWholeDays_andRefusesBadInput() {
    DayRange range = DayRange.parse("2026-11-01", "2026-11-30");
    assertEquals(30, range.days());
    assertEquals("2026-11-01T00:00Z", range.from().toString());
    assertEquals("2026-12-01T00:00Z", range.to().toString());
    assertEquals(LocalDate.of(2026, 11, 1), range.first());
    assertThrows(ApiProblem.class, () -> DayRange.parse("2026-11-30", "2026-11-01"));
    assertThrows(ApiProblem.class, () -> DayRange.parse("2025-01-01", "2026-11-01"));
    assertThrows(ApiProblem.class, () -> DayRange.parse("yesterday", null));
    assertEquals(7, DayRange.lastDays(7).days());
  }
}
