package io.tensafe.marketplace.web;

import io.quarkus.qute.RawString;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A bar chart drawn on the server as inline SVG (ADR 0014): no chart library, nothing fetched. The
 * SVG is an image with a title and a description that states the range; the page shows the same
 * numbers in a table beside it for screen readers and for copying.
 *
 * @param id unique on its page; used for the title and description ids
 * @param title what is plotted, e.g. "Requests per day"
 * @param bars oldest first; values are never negative
 * @param format how a value is written (axis, tooltips, description)
 */
public record BarChart(String id, String title, List<Bar> bars, DoubleFunction<String> format) {
  /** One bar: its label (a day, an adapter) and its value (≥ 0). */
  public record Bar(String label, double value) {}

  private static final int WIDTH = 480;
  private static final int HEIGHT = 210;
  private static final int LEFT = 80;
  private static final int RIGHT = 8;
  private static final int BOTTOM = 28;
  private static final int TOP = 14;

  /** The SVG element, safe to insert unescaped: every text in it is escaped here. */
  public RawString svg() {
    double max = bars.stream().mapToDouble(Bar::value).max().orElse(0);
    double scaleMax = max > 0 ? max : 1;
    int plotWidth = WIDTH - LEFT - RIGHT;
    int plotHeight = HEIGHT - TOP - BOTTOM;
    StringBuilder s = new StringBuilder(4096);
    s.append("<svg class=\"chart\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(HEIGHT)
        .append("\" role=\"img\" aria-labelledby=\"")
        .append(id)
        .append("-t ")
        .append(id)
        .append("-d\"><title id=\"")
        .append(id)
        .append("-t\">")
        .append(escape(title))
        .append("</title><desc id=\"")
        .append(id)
        .append("-d\">")
        .append(escape(description(max)))
        .append("</desc>");
    for (int i = 0; i <= 2; i++) {
      double value = scaleMax * i / 2;
      double y = TOP + plotHeight - plotHeight * i / 2.0;
      s.append(
          String.format(
              Locale.ROOT,
              "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>",
              LEFT,
              WIDTH - 8,
              y,
              y));
      s.append(
              String.format(
                  Locale.ROOT,
                  "<text class=\"axis\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
                  LEFT - 6,
                  y + 4))
          .append(escape(max > 0 ? format.apply(value) : i == 0 ? format.apply(0) : ""))
          .append("</text>");
    }
    int n = Math.max(bars.size(), 1);
    double slot = (double) plotWidth / n;
    double barWidth = Math.max(1, slot * 0.7);
    for (int i = 0; i < bars.size(); i++) {
      Bar bar = bars.get(i);
      double h = plotHeight * bar.value() / scaleMax;
      double x = LEFT + slot * i + (slot - barWidth) / 2;
      s.append(
              String.format(
                  Locale.ROOT,
                  "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
                  x,
                  TOP + plotHeight - h,
                  barWidth,
                  h))
          .append("<title>")
          .append(escape(bar.label() + ": " + format.apply(bar.value())))
          .append("</title></rect>");
      boolean first = i == 0;
      boolean last = i == bars.size() - 1;
      if (first || last || (bars.size() > 4 && i == bars.size() / 2)) {
        String anchor = first && !last ? "start" : last && !first ? "end" : "middle";
        double at = first && !last ? LEFT : last && !first ? WIDTH - RIGHT : x + barWidth / 2;
        s.append(
                String.format(
                    Locale.ROOT,
                    "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">",
                    at,
                    HEIGHT - 8,
                    anchor))
            .append(escape(axisLabel(bar.label())))
            .append("</text>");
      }
    }
    return new RawString(s.append("</svg>").toString());
  }

  /** A day's label on the axis without its year ("11-23"); other labels as they are. */
  private static String axisLabel(String label) {
    return label.matches("\\d{4}-\\d{2}-\\d{2}") ? label.substring(5) : label;
  }

  private String description(double max) {
    if (bars.isEmpty()) {
      return "No data.";
    }
    double total = bars.stream().mapToDouble(Bar::value).sum();
    return bars.size()
        + " bars from "
        + bars.getFirst().label()
        + " to "
        + bars.getLast().label()
        + "; highest "
        + format.apply(max)
        + ", total "
        + format.apply(total)
        + ".";
  }

  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
