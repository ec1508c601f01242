package io.tensafe.tgsp.json;

import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonBoolean;
import io.tensafe.tgsp.json.JsonValue.JsonNull;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one encoding of a JSON value (RFC 8785, JCS, restricted to integers): no whitespace, object
 * members sorted by the UTF-16 code units of their keys, strings escaped only where JSON requires
 * it (quote, backslash, and control characters as {@code \b \t \n \f \r} or as a backslash, "u" and
 * four lowercase hex digits), numbers as plain integers.
 *
 * <p>Invariant: only integers in [-(2^53 - 1), 2^53 - 1] are written, because those are the only
 * numbers whose RFC 8785 form is the plain decimal; TGSP documents carry every fractional quantity
 * as a decimal string instead. Anything else is refused with {@link IllegalArgumentException}.
 */
public final class CanonicalJson {
  /** Largest integer magnitude that JSON numbers carry exactly everywhere (2^53 - 1). */
  public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private CanonicalJson() {}

  /** The canonical UTF-8 bytes of {@code value}. */
  public static byte[] encode(JsonValue value) {
    StringBuilder out = new StringBuilder();
    write(value, out, false);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The same encoding, except that non-integer numbers are written in plain decimal ({@code 0.05}).
   * Not canonical: for files handed to other tools (a PEFT {@code adapter_config.json}), never for
   * anything signed or hashed.
   */
  public static byte[] encodeWithDecimals(JsonValue value) {
    StringBuilder out = new StringBuilder();
    write(value, out, true);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void write(JsonValue value, StringBuilder out, boolean decimals) {
    switch (value) {
      case JsonObject o -> {
        List<String> keys = new ArrayList<>(o.members().keySet());
        keys.sort(null); // String.compareTo orders by UTF-16 code units, as RFC 8785 requires
        out.append('{');
        for (int i = 0; i < keys.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          writeString(keys.get(i), out);
          out.append(':');
          write(o.members().get(keys.get(i)), out, decimals);
        }
        out.append('}');
      }
      case JsonArray a -> {
        out.append('[');
        for (int i = 0; i < a.elements().size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          write(a.elements().get(i), out, decimals);
        }
        out.append(']');
      }
      case JsonString s -> writeString(s.value(), out);
      case JsonNumber n ->
          out.append(
              decimals && n.value().stripTrailingZeros().scale() > 0
                  ? n.value().stripTrailingZeros().toPlainString()
                  : integerText(n.value()));
      case JsonBoolean b -> out.append(b.value());
      case JsonNull n -> out.append("null");
    }
  }

  private static String integerText(BigDecimal number) {
    BigDecimal stripped = number.stripTrailingZeros();
    if (stripped.scale() > 0
        || stripped.abs().compareTo(BigDecimal.valueOf(MAX_SAFE_INTEGER)) > 0) {
      throw new IllegalArgumentException(
          "canonical TGSP JSON carries only integers within ±(2^53 - 1), not " + number);
    }
    return stripped.toBigIntegerExact().toString();
  }

  private static void writeString(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\f' -> out.append("\\f");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
