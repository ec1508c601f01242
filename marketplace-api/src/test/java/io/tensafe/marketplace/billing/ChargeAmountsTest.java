package io.tensafe.marketplace.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ChargeAmountsTest {

  @Test
  void of_randomPricesTokensAndTakes_matchesExactDecimalArithmetic() {
    SplittableRandom random = new SplittableRandom(2026);
    for (int i = 0; i < 200_000; i++) {
      long prompt = random.nextLong(0, 1_000_000);
      long completion = random.nextLong(0, 1_000_000);
      long promptPrice = random.nextLong(1, 100_000_000);
      long completionPrice = random.nextLong(1, 100_000_000);
      int take = random.nextInt(0, 10_001);
      ChargeAmounts a = ChargeAmounts.of(prompt, completion, promptPrice, completionPrice, take);
      BigDecimal exact =
          BigDecimal.valueOf(prompt)
              .multiply(BigDecimal.valueOf(promptPrice))
              .add(BigDecimal.valueOf(completion).multiply(BigDecimal.valueOf(completionPrice)))
              .divide(BigDecimal.valueOf(1000));
      long amount = exact.setScale(0, RoundingMode.HALF_UP).longValueExact();
      long creator =
          BigDecimal.valueOf(amount)
              .multiply(BigDecimal.valueOf(10_000 - take))
              .divide(BigDecimal.valueOf(10_000))
              .setScale(0, RoundingMode.FLOOR)
              .longValueExact();
      assertEquals(amount, a.amountMicros(), "case " + i);
      assertEquals(creator, a.creatorMicros(), "case " + i);
      assertEquals(amount, a.creatorMicros() + a.platformMicros(), "case " + i);
    }
  }

  @Test
  void of_sumOfPeriodSplitsEqualsSumOfCharges() {
    SplittableRandom random = new SplittableRandom(7);
    long amount = 0;
    long shares = 0;
    for (int i = 0; i < 10_000; i++) {
      ChargeAmounts a =
          ChargeAmounts.of(
              random.nextLong(0, 5000),
              random.nextLong(0, 5000),
              1500,
              2000,
              random.nextInt(10_001));
      amount += a.amountMicros();
      shares += a.creatorMicros() + a.platformMicros();
    }
    assertEquals(amount, shares);
  }

  @Test
  void of_documentedExamples() {
    // 1,234 prompt tokens at 1.5 units/1k and 567 completion tokens at 2 units/1k:
    // 1851 + 1134 = 2985 micro-units; 25% take leaves the creator floor(2238.75) = 2238.
    assertEquals(new ChargeAmounts(2985, 2238, 747), ChargeAmounts.of(1234, 567, 1500, 2000, 2500));
    // Half a micro-unit rounds up; a whole take leaves the creator nothing.
    assertEquals(new ChargeAmounts(1, 0, 1), ChargeAmounts.of(1, 0, 500, 1, 10_000));
    assertEquals(new ChargeAmounts(0, 0, 0), ChargeAmounts.of(1, 0, 499, 1, 0));
    assertEquals(new ChargeAmounts(0, 0, 0), ChargeAmounts.of(0, 0, 1, 1, 2500));
  }

  @Test
  void of_outOfRangeInputs_refused() {
    assertThrows(IllegalArgumentException.class, () -> ChargeAmounts.of(-1, 0, 1, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> ChargeAmounts.of(0, 0, 0, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> ChargeAmounts.of(0, 0, 1, 1, 10_001));
    assertThrows(
        IllegalArgumentException.class,
        () -> ChargeAmounts.of(Long.MAX_VALUE / 2, 0, 1_000_000, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new ChargeAmounts(5, 3, 3));
  }
}
