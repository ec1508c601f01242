package io.tensafe.marketplace.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.text.PDFTextStripper;
import org.junit.jupiter.api.Test;

/** Issue 36: a report prints its party's name in the name's own script, with an embedded font. */
class PdfReportsTest {
  @Test
  void namesInGreekCyrillicAndHebrew_printAsWritten_andAGlyphTheFontLacksIsAQuestionMark()
      throws Exception {
    String name = "Ελένη Παπαδοπούλου · Иван Петров · שלום · 東京";
    OffsetDateTime at = OffsetDateTime.of(2026, 11, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    byte[] pdf =
        PdfReports.render(
            new Report("invoice", "acme", name, at, at.plusDays(30), at, List.of(), List.of()),
            ReportKind.INVOICE);
    try (PDDocument doc = Loader.loadPDF(pdf)) {
      String text = new PDFTextStripper().getText(doc);
      assertTrue(text.contains("Ελένη Παπαδοπούλου"), text);
      assertTrue(text.contains("Иван Петров"), text);
      assertTrue(text.contains("שלום") || text.contains("םולש"), text);
      assertTrue(text.contains("??"), "CJK, which DejaVu Sans lacks, prints as '?': " + text);
      assertTrue(
          doc.getPage(0)
              .getResources()
              .getFont(doc.getPage(0).getResources().getFontNames().iterator().next())
              .isEmbedded(),
          "the font is embedded");
    }
  }
}
