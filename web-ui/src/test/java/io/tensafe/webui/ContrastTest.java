package io.tensafe.webui;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The stylesheet's text and background colours meet WCAG 2.2 AA contrast (4.5:1 for text), for
 * every pair the pages use, computed from the colour variables in {@code /ui/app.css}.
 */
class ContrastTest {
  private static final Pattern VAR = Pattern.compile("--([a-z-]+):\\s*(#[0-9a-fA-F]{6})");

  /** {text, background} variable pairs the pages draw. */
  private static final String[][] PAIRS = {
    {"ink", "paper"},
    {"ink", "wash"},
    {"ink", "warn-wash"},
    {"muted", "paper"},
    {"muted", "wash"},
    {"muted", "warn-wash"},
    {"accent", "paper"},
    {"accent-ink", "accent"},
    {"accent-ink", "bad"},
    {"paper", "ink"},
    {"bad", "paper"},
    {"ok", "paper"},
    {"ok", "ok-wash"},
    {"bad", "bad-wash"},
  };

  private static Map<String, String> colours() throws IOException {
    try (InputStream in =
        ContrastTest.class.getResourceAsStream("/META-INF/resources/ui/app.css")) {
      assertNotNull(in, "app.css is bundled");
      Matcher m = VAR.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      Map<String, String> out = new HashMap<>();
      while (m.find()) {
        out.put(m.group(1), m.group(2).toLowerCase(Locale.ROOT));
      }
      return out;
    }
  }

  static double luminance(String hex) {
    double[] c = new double[3];
    for (int i = 0; i < 3; i++) {
      double v = Integer.parseInt(hex.substring(1 + 2 * i, 3 + 2 * i), 16) / 255.0;
      c[i] = v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }

  static double contrast(String a, String b) {
    double la = luminance(a);
    double lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  }

  @Test
  void contrast_ofBlackOnWhite_is21() {
    assertTrue(Math.abs(contrast("#000000", "#ffffff") - 21) < 1e-9);
  }

  @Test
  void everyTextColourOnItsBackground_meetsAa() throws IOException {
    Map<String, String> colours = colours();
    for (String[] pair : PAIRS) {
      String text = colours.get(pair[0]);
      String background = colours.get(pair[1]);
      assertNotNull(text, "--" + pair[0] + " is defined");
      assertNotNull(background, "--" + pair[1] + " is defined");
      double ratio = contrast(text, background);
      assertTrue(
          ratio >= 4.5,
          String.format(Locale.ROOT, "--%s on --%s: %.2f:1 < 4.5:1", pair[0], pair[1], ratio));
    }
  }
}
