package io.tensafe.client.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The local endpoint's key: random, taken only as itself, never shown by a refusal. */
class LocalApiKeyTest {
  private static final SecureRandom RANDOM = new SecureRandom(new byte[] {3});

  @Test
  void generate_twice_givesDistinctKeysOf256RandomBits() {
    String a = LocalApiKey.generate(RANDOM).value();
    String b = LocalApiKey.generate(RANDOM).value();
    assertNotEquals(a, b);
    for (String key : List.of(a, b)) {
      assertTrue(key.matches("tsc_[A-Za-z0-9_-]{43}"), key);
    }
  }

  @Test
  void verify_theKeyAsBearer_returns() {
    LocalApiKey key = LocalApiKey.generate(RANDOM);
    assertDoesNotThrow(() -> key.verify("Bearer " + key.value()));
    assertDoesNotThrow(() -> key.verify("bearer  " + key.value() + " "));
    LocalApiKey chosen = LocalApiKey.of("a-script's-key-0123");
    assertDoesNotThrow(() -> chosen.verify("Bearer a-script's-key-0123"));
  }

  @Test
  void verify_anythingElse_isRefusedWithoutQuotingIt() {
    LocalApiKey key = LocalApiKey.generate(RANDOM);
    String v = key.value();
    char[] flipped = v.toCharArray();
    flipped[10] = flipped[10] == 'A' ? 'B' : 'A';
    List<String> wrong =
        Arrays.asList(
            null,
            "",
            "Bearer",
            "Bearer ",
            v,
            "Basic " + v,
            "Bearer " + v + "x",
            "Bearer " + v.substring(0, v.length() - 1),
            "Bearer " + new String(flipped),
            "Bearer " + v.toUpperCase(java.util.Locale.ROOT),
            "Bearer any-string");
    for (String header : wrong) {
      LocalApiKey.Refused e = assertThrows(LocalApiKey.Refused.class, () -> key.verify(header));
      assertFalse(
          e.getMessage().contains(v.substring(4, 12)) || e.getMessage().contains("any-string"),
          e.getMessage());
    }
  }

  @Test
  void of_aKeyTooShortOrWithSpaces_isRefusedNamingTheRule() {
    for (String bad :
        List.of("short", "has spaces in it ok", "x".repeat(257), "ключ-ключ-ключ-ключ")) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> LocalApiKey.of(bad));
      assertTrue(e.getMessage().contains("16 to 256 visible ASCII"), e.getMessage());
    }
  }

  @Test
  void toString_neverShowsTheKey() {
    LocalApiKey key = LocalApiKey.generate(RANDOM);
    assertFalse(key.toString().contains(key.value().substring(4)));
  }
}
