package io.tensafe.marketplace.adapter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The one rule for a price rise: a scheduled price and a new version are judged alike. */
class PriceLevelTest {
  private static final PriceLevel BEFORE = new PriceLevel("USD", 1500, 2000, 2000);

  @Test
  void risesFrom_anyPriceAbove_isARise() {
    assertTrue(new PriceLevel("USD", 1501, 2000, 2000).risesFrom(BEFORE));
    assertTrue(new PriceLevel("USD", 1500, 2001, 2001).risesFrom(BEFORE));
    assertTrue(new PriceLevel("USD", 1500, 2000, 2001).risesFrom(BEFORE));
  }

  @Test
  void risesFrom_aCutOfOneAndARiseOfAnother_isARise() {
    assertTrue(new PriceLevel("USD", 1, 2001, 2001).risesFrom(BEFORE));
  }

  @Test
  void risesFrom_theSameOrLower_isNoRise() {
    assertFalse(BEFORE.risesFrom(BEFORE));
    assertFalse(new PriceLevel("USD", 1000, 2000, 1000).risesFrom(BEFORE));
  }

  @Test
  void risesFrom_anotherCurrency_isARiseWhateverTheFigures() {
    assertTrue(new PriceLevel("EUR", 1, 1, 1).risesFrom(BEFORE));
  }

  @Test
  void of_aPriceWithoutAPrivateOne_paysTheLargerHostedOneInPrivate() {
    AdapterPrice p = new AdapterPrice();
    p.currency = "USD";
    p.promptMicrosPer1kTokens = 1500;
    p.completionMicrosPer1kTokens = 2000;
    assertFalse(PriceLevel.of(p).risesFrom(BEFORE));
    assertTrue(
        PriceLevel.of("USD", new PriceChange(1500, 2000, null, 2500L)).risesFrom(PriceLevel.of(p)));
  }
}
