package io.tensafe.node.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class QwenTokenizerTest {
  private static QwenTokenizer tokenizer;

  @BeforeAll
  static void load() {
    tokenizer = QwenTokenizer.load();
  }

  @AfterAll
  static void close() {
    tokenizer.close();
  }

  @Test
  void encode_savingsAccountQuestion_isQwensIds() {
    assertArrayEquals(
        new long[] {3838, 374, 264, 18986, 2692, 30},
        tokenizer.encode("What is a savings account?"));
  }

  @Test
  void encode_longInput_isNotTruncatedAt512() {
    String text = "deposit ".repeat(2000);
    long[] ids = tokenizer.encode(text);
    assertTrue(ids.length >= 2000, "got " + ids.length + " tokens");
  }

  @Test
  void decode_roundTripsTextAndSpecialTokens() {
    String text = "<|im_start|>user\nHow do I apply for a mortgage? 🏦<|im_end|>";
    long[] ids = tokenizer.encode(text);
    assertEquals(151644, ids[0]); // <|im_start|> is one special token
    assertEquals(text, tokenizer.decode(ids));
  }
}
