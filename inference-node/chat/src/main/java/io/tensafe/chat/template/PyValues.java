package io.tensafe.chat.template;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Python's semantics for the values a template sees: strings, integers ({@code Long}), floats
 * ({@code Double}), booleans, none ({@code null}), lists and mappings (insertion-ordered), a
 * namespace, and {@link #UNDEFINED}. Truthiness, {@code str}, {@code repr}, equality, ordering and
 * arithmetic follow Python, as Jinja2 evaluates them.
 */
final class PyValues {
  /** Jinja2's undefined: false, renders as nothing, fails when used as a value. */
  static final Object UNDEFINED =
      new Object() {
        @Override
        public String toString() {
          return "Undefined";
        }
      };

  /** A Jinja2 {@code namespace()}: the one mutable value, assigned with {@code set ns.x = v}. */
  static final class Namespace {
    final Map<String, Object> attributes;

    Namespace(Map<String, Object> attributes) {
      this.attributes = attributes;
    }
  }

  /** A failure while rendering; carried to {@link ChatTemplate#render} and reported there. */
  static final class RenderFailure extends RuntimeException {
    RenderFailure(String message) {
      super(message, null, false, false);
    }
  }

  private PyValues() {}

  static boolean truthy(Object v) {
    if (v == null || v == UNDEFINED) {
      return false;
    }
    return switch (v) {
      case Boolean b -> b;
      case String s -> !s.isEmpty();
      case Long l -> l != 0;
      case Double d -> d != 0.0;
      case List<?> l -> !l.isEmpty();
      case Map<?, ?> m -> !m.isEmpty();
      default -> true;
    };
  }

  /** Python's {@code str()}; undefined renders as the empty string. */
  static String str(Object v) {
    if (v == UNDEFINED) {
      return "";
    }
    return v instanceof String s ? s : repr(v);
  }

  static String repr(Object v) {
    if (v == null) {
      return "None";
    }
    return switch (v) {
      case Boolean b -> b ? "True" : "False";
      case String s -> "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
      case Double d -> floatRepr(d);
      case List<?> l -> {
        List<String> parts = new ArrayList<>();
        l.forEach(x -> parts.add(repr(x)));
        yield "[" + String.join(", ", parts) + "]";
      }
      case Map<?, ?> m -> {
        List<String> parts = new ArrayList<>();
        m.forEach((k, x) -> parts.add(repr(k) + ": " + repr(x)));
        yield "{" + String.join(", ", parts) + "}";
      }
      case Namespace n -> "<Namespace " + repr(n.attributes) + ">";
      default -> v.toString();
    };
  }

  /** Python's {@code repr(float)}: shortest digits, exponent form below 1e-4 and from 1e16. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
    String digits = exact.unscaledValue().toString();
    int exponent = digits.length() - 1 - exact.scale();
    String sign = d < 0 ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
      String plain = exact.toPlainString();
      return sign + (plain.contains(".") ? plain : plain + ".0");
    }
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    String e = String.format("%02d", Math.abs(exponent));
    return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + e;
  }

  static boolean equal(Object a, Object b) {
    if (a == UNDEFINED || b == UNDEFINED) {
      return a == b;
    }
    if (isNumber(a) && isNumber(b)) {
      return number(a) == number(b);
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!equal(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a == null ? b == null : a.equals(b);
  }

  static int compare(Object a, Object b) {
    if (isNumber(a) && isNumber(b)) {
      return Double.compare(number(a), number(b));
    }
    if (a instanceof String x && b instanceof String y) {
      return x.compareTo(y);
    }
    throw new RenderFailure("cannot order " + typeName(a) + " and " + typeName(b));
  }

  static boolean isNumber(Object v) {
    return v instanceof Long || v instanceof Double || v instanceof Boolean;
  }

  static double number(Object v) {
    return switch (v) {
      case Long l -> l;
      case Double d -> d;
      case Boolean b -> b ? 1 : 0;
      default -> throw new RenderFailure(typeName(v) + " is not a number");
    };
  }

  static long integer(Object v) {
    return switch (v) {
      case Long l -> l;
      case Boolean b -> b ? 1 : 0;
      default -> throw new RenderFailure(typeName(v) + " is not an integer");
    };
  }

  /** Python's {@code in}: substring, list membership or mapping key. */
  static boolean contains(Object container, Object item) {
    return switch (container) {
      case String s when item instanceof String t -> s.contains(t);
      case List<?> l -> l.stream().anyMatch(x -> equal(x, item));
      case Map<?, ?> m -> m.containsKey(item);
      case null, default ->
          throw new RenderFailure(
              "'in' needs a string, list or mapping, not " + typeName(container));
    };
  }

  static String typeName(Object v) {
    if (v == null) {
      return "none";
    }
    if (v == UNDEFINED) {
      return "an undefined value";
    }
    return switch (v) {
      case String s -> "a string";
      case Long l -> "an integer";
      case Double d -> "a float";
      case Boolean b -> "a boolean";
      case List<?> l -> "a list";
      case Map<?, ?> m -> "a mapping";
      case Namespace n -> "a namespace";
      default -> v.getClass().getSimpleName();
    };
  }
}
