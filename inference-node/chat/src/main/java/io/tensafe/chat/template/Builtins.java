package io.tensafe.chat.template;

import static io.tensafe.chat.template.PyValues.UNDEFINED;

import io.tensafe.chat.template.PyValues.RenderFailure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The filters, tests, methods and functions the renderer implements: those chat templates of the
 * Qwen, Llama, Mistral and similar families use. Names outside these sets are refused when the
 * template is compiled, never at request time.
 */
final class Builtins {
  static final Set<String> FILTERS =
      Set.of(
          "length",
          "count",
          "tojson",
          "trim",
          "string",
          "join",
          "first",
          "last",
          "upper",
          "lower",
          "default",
          "d",
          "items",
          "list",
          "reverse",
          "safe",
          "capitalize",
          "title",
          "replace",
          "int",
          "abs");
  static final Set<String> TESTS =
      Set.of(
          "defined",
          "undefined",
          "none",
          "string",
          "number",
          "integer",
          "float",
          "mapping",
          "iterable",
          "sequence",
          "boolean",
          "true",
          "false",
          "odd",
          "even");
  static final Set<String> METHODS =
      Set.of(
          "startswith",
          "endswith",
          "split",
          "strip",
          "lstrip",
          "rstrip",
          "upper",
          "lower",
          "replace",
          "title",
          "capitalize",
          "find",
          "items",
          "keys",
          "values",
          "get");
  static final Set<String> FUNCTIONS = Set.of("namespace", "raise_exception", "range");

  private Builtins() {}

  static Object filter(String name, Object v, List<Object> args, Map<String, Object> keywords) {
    return switch (name) {
      case "length", "count" -> (long) size(v);
      case "tojson" -> {
        Object indent = keywords.getOrDefault("indent", args.isEmpty() ? null : args.get(0));
        boolean sortKeys = PyValues.truthy(keywords.getOrDefault("sort_keys", false));
        yield PyJson.dumps(
            defined(v), indent == null ? null : (int) PyValues.integer(indent), sortKeys);
      }
      case "trim" -> PyValues.str(v).strip();
      case "string" -> PyValues.str(v);
      case "join" -> {
        String separator = args.isEmpty() ? "" : PyValues.str(args.get(0));
        List<String> parts = new ArrayList<>();
        for (Object x : iterate(v)) {
          parts.add(PyValues.str(x));
        }
        yield String.join(separator, parts);
      }
      case "first" -> {
        List<Object> items = iterate(v);
        yield items.isEmpty() ? UNDEFINED : items.get(0);
      }
      case "last" -> {
        List<Object> items = iterate(v);
        yield items.isEmpty() ? UNDEFINED : items.get(items.size() - 1);
      }
      case "upper" -> PyValues.str(v).toUpperCase(Locale.ROOT);
      case "lower" -> PyValues.str(v).toLowerCase(Locale.ROOT);
      case "default", "d" -> {
        boolean orFalsy =
            args.size() > 1 && PyValues.truthy(args.get(1))
                || PyValues.truthy(keywords.getOrDefault("boolean", false));
        boolean missing = v == UNDEFINED || (orFalsy && !PyValues.truthy(v));
        yield missing ? (args.isEmpty() ? "" : args.get(0)) : v;
      }
      case "items" -> method("items", v, List.of());
      case "list" -> iterate(v);
      case "reverse" -> {
        if (v instanceof String s) {
          yield new StringBuilder(s).reverse().toString();
        }
        List<Object> items = new ArrayList<>(iterate(v));
        Collections.reverse(items);
        yield items;
      }
      case "safe" -> v;
      case "capitalize", "title" -> method(name, v, List.of());
      case "replace" -> method("replace", v, args);
      case "int" -> v instanceof Double d ? (long) (double) d : parseInteger(v);
      case "abs" -> v instanceof Double d ? Math.abs(d) : Math.abs(PyValues.integer(v));
      default -> throw new RenderFailure("unknown filter " + name);
    };
  }

  static boolean test(String name, Object v) {
    return switch (name) {
      case "defined" -> v != UNDEFINED;
      case "undefined" -> v == UNDEFINED;
      case "none" -> v == null;
      case "string" -> v instanceof String;
      case "number" -> v instanceof Long || v instanceof Double;
      case "integer" -> v instanceof Long;
      case "float" -> v instanceof Double;
      case "mapping" -> v instanceof Map<?, ?> || v instanceof PyValues.Namespace;
      case "iterable" -> v instanceof List<?> || v instanceof Map<?, ?> || v instanceof String;
      case "sequence" -> v instanceof List<?> || v instanceof Map<?, ?> || v instanceof String;
      case "boolean" -> v instanceof Boolean;
      case "true" -> Boolean.TRUE.equals(v);
      case "false" -> Boolean.FALSE.equals(v);
      case "odd" -> PyValues.integer(v) % 2 != 0;
      case "even" -> PyValues.integer(v) % 2 == 0;
      default -> throw new RenderFailure("unknown test " + name);
    };
  }

  static Object method(String name, Object target, List<Object> args) {
    if (target instanceof Map<?, ?> map) {
      return switch (name) {
        case "items" -> {
          List<Object> pairs = new ArrayList<>();
          map.forEach((k, x) -> pairs.add(java.util.Arrays.asList(k, x)));
          yield pairs;
        }
        case "keys" -> new ArrayList<Object>(map.keySet());
        case "values" -> new ArrayList<Object>(map.values());
        case "get" ->
            map.containsKey(args.get(0))
                ? map.get(args.get(0))
                : (args.size() > 1 ? args.get(1) : null);
        default -> throw new RenderFailure("a mapping has no method ." + name + "()");
      };
    }
    if (!(target instanceof String s)) {
      throw new RenderFailure(PyValues.typeName(target) + " has no method ." + name + "()");
    }
    return switch (name) {
      case "startswith" -> s.startsWith(stringArgument(args, 0));
      case "endswith" -> s.endsWith(stringArgument(args, 0));
      case "split" ->
          split(s, args.isEmpty() || args.get(0) == null ? null : stringArgument(args, 0));
      case "strip" -> strip(s, chars(args), true, true);
      case "lstrip" -> strip(s, chars(args), true, false);
      case "rstrip" -> strip(s, chars(args), false, true);
      case "upper" -> s.toUpperCase(Locale.ROOT);
      case "lower" -> s.toLowerCase(Locale.ROOT);
      case "replace" -> s.replace(stringArgument(args, 0), stringArgument(args, 1));
      case "capitalize" ->
          s.isEmpty()
              ? s
              : s.substring(0, 1).toUpperCase(Locale.ROOT)
                  + s.substring(1).toLowerCase(Locale.ROOT);
      case "title" -> title(s);
      case "find" -> (long) s.indexOf(stringArgument(args, 0));
      default -> throw new RenderFailure("a string has no method ." + name + "()");
    };
  }

  static Object function(String name, List<Object> args, Map<String, Object> keywords) {
    return switch (name) {
      case "namespace" -> new PyValues.Namespace(new LinkedHashMap<>(keywords));
      case "raise_exception" ->
          throw new RenderFailure(
              "the template refused the request: "
                  + (args.isEmpty() ? "" : PyValues.str(args.get(0))));
      case "range" -> {
        long start = args.size() > 1 ? PyValues.integer(args.get(0)) : 0;
        long stop = PyValues.integer(args.get(args.size() > 1 ? 1 : 0));
        if (stop - start > 1_000_000) {
          throw new RenderFailure("range() of more than 1,000,000 items");
        }
        List<Object> items = new ArrayList<>();
        for (long i = start; i < stop; i++) {
          items.add(i);
        }
        yield items;
      }
      default -> throw new RenderFailure("unknown function " + name);
    };
  }

  /** The items a for loop or filter walks: a list's items, a mapping's keys, a string's chars. */
  static List<Object> iterate(Object v) {
    return switch (v) {
      case List<?> l -> Collections.unmodifiableList(l);
      case Map<?, ?> m -> new ArrayList<Object>(m.keySet());
      case String s -> s.codePoints().mapToObj(c -> (Object) Character.toString(c)).toList();
      case null, default -> throw new RenderFailure(PyValues.typeName(v) + " is not iterable");
    };
  }

  static int size(Object v) {
    return switch (v) {
      case String s -> s.codePointCount(0, s.length());
      case List<?> l -> l.size();
      case Map<?, ?> m -> m.size();
      case null, default -> throw new RenderFailure(PyValues.typeName(v) + " has no length");
    };
  }

  private static Object defined(Object v) {
    if (v == UNDEFINED) {
      throw new RenderFailure("tojson of an undefined value");
    }
    return v;
  }

  private static long parseInteger(Object v) {
    if (v instanceof String s) {
      try {
        return Long.parseLong(s.strip());
      } catch (NumberFormatException e) {
        return 0;
      }
    }
    return PyValues.integer(v);
  }

  private static String stringArgument(List<Object> args, int index) {
    if (args.size() <= index || !(args.get(index) instanceof String s)) {
      throw new RenderFailure("argument " + (index + 1) + " must be a string");
    }
    return s;
  }

  private static String chars(List<Object> args) {
    return args.isEmpty() || args.get(0) == null ? null : stringArgument(args, 0);
  }

  /** Python's {@code str.split}: on a separator keeping empty parts, or on runs of whitespace. */
  static List<Object> split(String s, String separator) {
    List<Object> parts = new ArrayList<>();
    if (separator == null) {
      for (String p : s.strip().split("\\s+")) {
        if (!p.isEmpty()) {
          parts.add(p);
        }
      }
      return parts;
    }
    if (separator.isEmpty()) {
      throw new RenderFailure("split() with an empty separator");
    }
    int from = 0;
    for (int at = s.indexOf(separator); at >= 0; at = s.indexOf(separator, from)) {
      parts.add(s.substring(from, at));
      from = at + separator.length();
    }
    parts.add(s.substring(from));
    return parts;
  }

  /** Python's strip family: {@code chars} null means whitespace. */
  static String strip(String s, String chars, boolean left, boolean right) {
    int start = 0;
    int end = s.length();
    while (left && start < end && stripped(s.charAt(start), chars)) {
      start++;
    }
    while (right && end > start && stripped(s.charAt(end - 1), chars)) {
      end--;
    }
    return s.substring(start, end);
  }

  private static boolean stripped(char c, String chars) {
    return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
  }

  private static String title(String s) {
    StringBuilder out = new StringBuilder();
    boolean start = true;
    for (char c : s.toCharArray()) {
      out.append(start ? Character.toUpperCase(c) : Character.toLowerCase(c));
      start = !Character.isLetter(c);
    }
    return out.toString();
  }
}
