package io.tensafe.chat.template;

import io.tensafe.chat.template.PyValues.RenderFailure;

/** Python's numeric operators on integers ({@code Long}) and floats ({@code Double}). */
final class Arithmetic {
  private Arithmetic() {}

  static Object apply(String op, Object left, Object right) {
    if (op.equals("*") && (left instanceof String || right instanceof String)) {
      String s = left instanceof String l ? l : (String) right;
      long times = PyValues.integer(left instanceof String ? right : left);
      if (times * (long) s.length() > TemplateInterpreter.MAX_OUTPUT_CHARS) {
        throw new RenderFailure("a repeated string longer than the rendering limit");
      }
      return times <= 0 ? "" : s.repeat((int) times);
    }
    if (!PyValues.isNumber(left) || !PyValues.isNumber(right)) {
      throw new RenderFailure(
          "'" + op + "' of " + PyValues.typeName(left) + " and " + PyValues.typeName(right));
    }
    boolean integers = !(left instanceof Double) && !(right instanceof Double);
    if (integers && !op.equals("/")) {
      long a = PyValues.integer(left);
      long b = PyValues.integer(right);
      return switch (op) {
        case "+" -> Math.addExact(a, b);
        case "-" -> Math.subtractExact(a, b);
        case "*" -> Math.multiplyExact(a, b);
        case "//" -> Math.floorDiv(a, nonZero(b));
        case "%" -> Math.floorMod(a, nonZero(b));
        default -> throw new RenderFailure("unknown operator " + op);
      };
    }
    double a = PyValues.number(left);
    double b = PyValues.number(right);
    return switch (op) {
      case "+" -> a + b;
      case "-" -> a - b;
      case "*" -> a * b;
      case "/" -> a / nonZero(b);
      case "//" -> Math.floor(a / nonZero(b));
      case "%" -> a - b * Math.floor(a / nonZero(b));
      default -> throw new RenderFailure("unknown operator " + op);
    };
  }

  private static long nonZero(long b) {
    if (b == 0) {
      throw new RenderFailure("division by zero");
    }
    return b;
  }

  private static double nonZero(double b) {
    if (b == 0) {
      throw new RenderFailure("division by zero");
    }
    return b;
  }
}
