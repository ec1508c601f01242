package io.tensafe.marketplace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class SqlValuesTest {
  @Test
  void toLongExact_keepsEveryValueInRange() {
    assertEquals(Long.MAX_VALUE, SqlValues.toLongExact(new BigDecimal(Long.MAX_VALUE)));
    assertEquals(Long.MIN_VALUE, SqlValues.toLongExact(BigInteger.valueOf(Long.MIN_VALUE)));
    assertEquals(42L, SqlValues.toLongExact(42));
    assertEquals(7L, SqlValues.toLongExact(7L));
  }

  @Test
  void toLongExact_aSumPast2To63_throwsInsteadOfWrapping() {
    // Two charges of 2^62 micro-units each: sum(bigint) is numeric 2^63, which longValue() wraps
    // to Long.MIN_VALUE.
    BigDecimal sum = new BigDecimal(BigInteger.ONE.shiftLeft(63));
    assertEquals(Long.MIN_VALUE, sum.longValue(), "what the reports read before");
    ArithmeticException e =
        assertThrows(ArithmeticException.class, () -> SqlValues.toLongExact(sum));
    assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
    assertThrows(ArithmeticException.class, () -> SqlValues.toLongExact(new BigDecimal("1.5")));
  }
}
