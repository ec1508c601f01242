package io.tensafe.marketplace.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType0Font;

/**
 * Reports as A4 PDF documents (PDFBox, DejaVu Sans embedded as a subset): a heading with the party
 * and the period, one table per dimension, and the totals. Amounts are shown in currency units with
 * six decimals, which is exactly the ledger's micro-units. Names print in any script DejaVu Sans
 * covers (Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic and more); a character it has
 * no glyph for (CJK, say) is replaced by '?', never dropped silently.
 */
public final class PdfReports {
  private static final float MARGIN = 48;
  private static final float LINE = 14;
  private static final float SIZE = 9;
  private static final DateTimeFormatter INSTANT = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  private PdfReports() {}

  public static byte[] render(Report report, ReportKind kind) {
    try (PDDocument doc = new PDDocument()) {
      PDDocumentInformation info = doc.getDocumentInformation();
      info.setTitle("TenSafe " + kind.title() + " " + report.party());
      info.setCreator("TenSafe marketplace");
      try (Writer w = new Writer(doc)) {
        w.text(Fonts.BOLD, 16, "TenSafe - " + kind.title());
        w.gap();
        w.text(Fonts.REGULAR, 10, "For: " + report.partyName() + " (" + report.party() + ")");
        w.text(
            Fonts.REGULAR,
            10,
            "Period: "
                + INSTANT.format(report.from())
                + " to "
                + INSTANT.format(report.to())
                + " (requests started in it)");
        w.text(Fonts.REGULAR, 10, "Generated: " + INSTANT.format(report.generatedAt()));
        String dimension = null;
        for (ReportLine l : report.lines()) {
          if (!l.dimension().equals(dimension)) {
            dimension = l.dimension();
            w.gap();
            w.text(Fonts.BOLD, 11, "By " + dimension);
            w.row(Fonts.BOLD, header(kind));
          }
          w.row(Fonts.REGULAR, cells(kind, l.key(), l));
        }
        w.gap();
        w.text(Fonts.BOLD, 11, "Totals");
        w.row(Fonts.BOLD, header(kind));
        if (report.totals().isEmpty()) {
          w.text(Fonts.REGULAR, SIZE, "No charges in this period.");
        }
        for (ReportTotal t : report.totals()) {
          w.row(Fonts.BOLD, cells(kind, "total", t.asLine()));
        }
        w.gap();
        w.text(
            Fonts.REGULAR,
            8,
            "Amounts are sums of the charge ledger's integer micro-units; each charge was rounded"
                + " once, when it was recorded.");
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      doc.save(out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> header(ReportKind kind) {
    List<String> h =
        new ArrayList<>(List.of("Item", "Cur", "Requests", "Prompt tok", "Compl. tok", "Amount"));
    if (kind.showsSplit()) {
      h.addAll(List.of("Creator", "Platform"));
    }
    return h;
  }

  private static List<String> cells(ReportKind kind, String label, ReportLine line) {
    List<String> c = new ArrayList<>(List.of(label));
    c.addAll(line.columns(kind.showsSplit(), PdfReports::money));
    return c;
  }

  /** Micro-units as a decimal with six places: exact. */
  static String money(long micros) {
    return BigDecimal.valueOf(micros, 6).toPlainString();
  }

  private enum Fonts {
    REGULAR("DejaVuSans.ttf"),
    BOLD("DejaVuSans-Bold.ttf");

    /** The font file, a resource beside this class (copied from fonts-dejavu-core at build). */
    final String file;

    Fonts(String file) {
      this.file = file;
    }

    /** This font embedded (as a subset) in {@code doc}. */
    PDType0Font loadInto(PDDocument doc) throws IOException {
      try (InputStream in = PdfReports.class.getResourceAsStream("fonts/" + file)) {
        if (in == null) {
          throw new IllegalStateException(
              "the reports' font "
                  + file
                  + " is not packaged: build with Debian's fonts-dejavu-core installed");
        }
        return PDType0Font.load(doc, in, true);
      }
    }
  }

  /** Writes lines top to bottom, starting a new page when one is full. */
  private static final class Writer implements AutoCloseable {
    private static final float[] COLUMNS = {0, 150, 180, 230, 285, 340, 400, 455};
    private final PDDocument doc;
    private final java.util.Map<Fonts, PDType0Font> fonts = new java.util.EnumMap<>(Fonts.class);
    private PDPageContentStream page;
    private float y;

    Writer(PDDocument doc) throws IOException {
      this.doc = doc;
      for (Fonts f : Fonts.values()) {
        fonts.put(f, f.loadInto(doc));
      }
      newPage();
    }

    private void newPage() throws IOException {
      if (page != null) {
        page.close();
      }
      PDPage p = new PDPage(PDRectangle.A4);
      doc.addPage(p);
      page = new PDPageContentStream(doc, p);
      y = PDRectangle.A4.getHeight() - MARGIN;
    }

    private void room(float height) throws IOException {
      if (y - height < MARGIN) {
        newPage();
      }
    }

    void gap() {
      y -= LINE / 2;
    }

    void text(Fonts font, float size, String text) throws IOException {
      room(size + 4);
      y -= size + 4;
      show(font, size, MARGIN, text);
    }

    void row(Fonts font, List<String> cells) throws IOException {
      room(LINE);
      y -= LINE;
      for (int i = 0; i < cells.size(); i++) {
        String cell = cells.get(i);
        if (i == 0 && cell.length() > 30) {
          cell = cell.substring(0, 29) + "~";
        }
        show(font, SIZE, MARGIN + COLUMNS[i], cell);
      }
    }

    private void show(Fonts font, float size, float x, String text) throws IOException {
      PDType0Font f = fonts.get(font);
      page.beginText();
      page.setFont(f, size);
      page.newLineAtOffset(x, y);
      page.showText(printable(f, text));
      page.endText();
    }

    /** {@code text} with each character {@code font} has no glyph for (or a control) as '?'. */
    private static String printable(PDType0Font font, String text) {
      StringBuilder b = new StringBuilder(text.length());
      text.codePoints()
          .forEach(
              cp -> {
                if (Character.isISOControl(cp) || !hasGlyph(font, cp)) {
                  b.append('?');
                } else {
                  b.appendCodePoint(cp);
                }
              });
      return b.toString();
    }

    private static boolean hasGlyph(PDType0Font font, int codePoint) {
      try {
        font.encode(new String(Character.toChars(codePoint)));
        return true;
      } catch (IllegalArgumentException | IOException e) {
        return false; // PDFBox: "No glyph for U+... in font"
      }
    }

    @Override
    public void close() throws IOException {
      page.close();
    }
  }
}
