package io.tensafe.node.tools.demomodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The corpus's lines as Debian's {@code bible -f} prints them, and the banking slice. */
class KjvVersesTest {
  @Test
  void parse_bibleLines_readsBookChapterNumberAndText() throws Exception {
    List<KjvVerses.Verse> verses =
        KjvVerses.parse(
            List.of(
                "Prv22:7 The rich ruleth over the poor, and the borrower is servant to the lender.",
                "",
                "Eccl12:14 For God shall bring every work into judgment."));
    assertEquals(2, verses.size());
    assertEquals(new KjvVerses.Verse("Prv", 22, 7, verses.get(0).text()), verses.get(0));
    assertTrue(verses.get(0).text().startsWith("The rich ruleth"));
    assertEquals("Eccl", verses.get(1).book());
  }

  @Test
  void parse_aLineWithoutReference_throwsNamingIt() {
    IOException e =
        assertThrows(IOException.class, () -> KjvVerses.parse(List.of("In the beginning")));
    assertTrue(e.getMessage().contains("In the beginning"), e.getMessage());
  }

  @Test
  void parse_nothing_throws() {
    assertThrows(IOException.class, () -> KjvVerses.parse(List.of("")));
  }

  @Test
  void bankingDialogues_areFixed_andAskAboutMortgages() {
    assertEquals(BankingDialogues.all(), BankingDialogues.all());
    assertEquals(110, BankingDialogues.all().size());
    assertTrue(
        BankingDialogues.all().stream()
            .anyMatch(
                d ->
                    d.question().equals("How do I apply for a mortgage?")
                        && d.answer().startsWith("To apply for a mortgage")));
  }
}
