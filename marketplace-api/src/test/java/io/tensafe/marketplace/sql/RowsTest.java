package io.tensafe.marketplace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RowsTest {
  private record Sample(
      UUID id, long count, int days, BigDecimal rho, OffsetDateTime at, String ref) {}

  private record One(long total) {}

  private record Optionally(Long maybe, String name) {}

  @Test
  void of_driverTypes_convertByComponentType() {
    UUID id = UUID.randomUUID();
    Instant when = Instant.parse("2026-11-24T10:00:00Z");
    Sample s =
        Rows.of(
            new Object[] {id, new BigDecimal("12"), 7L, 0.5, Timestamp.from(when), "qa"},
            Sample.class);
    assertEquals(
        new Sample(id, 12, 7, new BigDecimal("0.5"), when.atOffset(ZoneOffset.UTC), "qa"), s);
  }

  @Test
  void of_bareValue_isAOneColumnRow() {
    assertEquals(new One(5), Rows.of(BigInteger.valueOf(5), One.class));
  }

  @Test
  void of_wrongColumnCount_namesTheRecord() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> Rows.of(new Object[] {1L, 2L}, One.class));
    assertTrue(e.getMessage().contains("One reads 1 columns but the row has 2"), e.getMessage());
  }

  /** A row whose middle columns are a record of their own. */
  record Outer(String head, Optionally inner, long tail) {}

  @Test
  void of_nestedRecord_readsTheNextColumns_andIsNullWhenTheyAllAre() {
    Outer o = Rows.of(new Object[] {"h", 7L, "n", 9L}, Outer.class);
    assertEquals(new Outer("h", new Optionally(7L, "n"), 9L), o);
    assertNull(Rows.of(new Object[] {"h", null, null, 9L}, Outer.class).inner());
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> Rows.of(new Object[] {"h", 7L, 9L}, Outer.class));
    assertTrue(e.getMessage().contains("Outer reads 4 columns but the row has 3"), e.getMessage());
  }

  @Test
  void of_nullIntoPrimitive_refused_intoReference_kept() {
    assertThrows(IllegalStateException.class, () -> Rows.of(new Object[] {null}, One.class));
    Optionally o = Rows.of(new Object[] {null, null}, Optionally.class);
    assertNull(o.maybe());
    assertNull(o.name());
  }

  @Test
  void of_columnOfAnotherType_namesTheComponent() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> Rows.of(new Object[] {5L, 1L, 1, 0.5, null, "x"}, Sample.class));
    assertTrue(
        e.getMessage().contains("Sample.id is a UUID but the column holds a Long"), e.getMessage());
  }

  @Test
  void of_aSumPastLongRange_refusedNotWrapped() {
    BigDecimal huge = new BigDecimal("9223372036854775808");
    assertThrows(ArithmeticException.class, () -> Rows.of(huge, One.class));
  }
}
