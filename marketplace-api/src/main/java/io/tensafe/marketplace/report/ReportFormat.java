package io.tensafe.marketplace.report;

import io.tensafe.marketplace.problem.ProblemTypes;
import java.util.Locale;

/** How a report is delivered; {@code ?format=} picks one, JSON by default. */
public enum ReportFormat {
  JSON("application/json", "json"),
  CSV("text/csv; charset=utf-8", "csv"),
  PDF("application/pdf", "pdf");

  private final String mediaType;
  private final String extension;

  ReportFormat(String mediaType, String extension) {
    this.mediaType = mediaType;
    this.extension = extension;
  }

  public String mediaType() {
    return mediaType;
  }

  public String extension() {
    return extension;
  }

  /**
   * @param value json, csv or pdf (any case), or null for JSON
   * @throws io.tensafe.marketplace.problem.ApiProblem validation for anything else
   */
  public static ReportFormat parse(String value) {
    if (value == null) {
      return JSON;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "json" -> JSON;
      case "csv" -> CSV;
      case "pdf" -> PDF;
      default -> throw ProblemTypes.validation("format must be json, csv or pdf");
    };
  }
}
