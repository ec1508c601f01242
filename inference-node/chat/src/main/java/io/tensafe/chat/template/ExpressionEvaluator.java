package io.tensafe.chat.template;

import static io.tensafe.chat.template.PyValues.UNDEFINED;

import io.tensafe.chat.template.PyValues.RenderFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Evaluates expressions with Python's semantics (see {@link PyValues}). */
final class ExpressionEvaluator {
  private final Function<String, Object> names;

  ExpressionEvaluator(Function<String, Object> names) {
    this.names = names;
  }

  Object eval(Expression e) {
    return switch (e) {
      case Expression.Literal l -> l.value();
      case Expression.ListLiteral l -> {
        List<Object> items = new ArrayList<>();
        l.items().forEach(x -> items.add(eval(x)));
        yield items;
      }
      case Expression.DictLiteral d -> {
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < d.keys().size(); i++) {
          map.put(eval(d.keys().get(i)), eval(d.values().get(i)));
        }
        yield map;
      }
      case Expression.Name n -> names.apply(n.name());
      case Expression.Attribute a -> attribute(eval(a.target()), a.name());
      case Expression.Item i -> item(eval(i.target()), eval(i.index()));
      case Expression.Slice s -> slice(s);
      case Expression.Call c -> call(c);
      case Expression.Filter f ->
          Builtins.filter(
              f.name(), eval(f.target()), values(f.arguments()), keywords(f.keywords()));
      case Expression.Test t -> Builtins.test(t.name(), eval(t.target())) != t.negated();
      case Expression.Unary u ->
          u.operator().equals("not")
              ? !PyValues.truthy(eval(u.operand()))
              : negate(eval(u.operand()));
      case Expression.Binary b -> binary(b);
      case Expression.Conditional c ->
          PyValues.truthy(eval(c.condition()))
              ? eval(c.then())
              : c.otherwise() == null ? UNDEFINED : eval(c.otherwise());
    };
  }

  /** {@code target.name}: a mapping's key or a namespace's attribute; otherwise undefined. */
  private static Object attribute(Object target, String name) {
    if (target == UNDEFINED) {
      throw new RenderFailure("'." + name + "' of an undefined value");
    }
    if (target instanceof Map<?, ?> m) {
      return m.containsKey(name) ? m.get(name) : UNDEFINED;
    }
    if (target instanceof PyValues.Namespace ns) {
      return ns.attributes.containsKey(name) ? ns.attributes.get(name) : UNDEFINED;
    }
    return UNDEFINED;
  }

  private static Object item(Object target, Object index) {
    if (target == UNDEFINED) {
      throw new RenderFailure("an item of an undefined value");
    }
    if (target instanceof Map<?, ?> m) {
      return m.containsKey(index) ? m.get(index) : UNDEFINED;
    }
    if (index instanceof String key) {
      return attribute(target, key);
    }
    if (target instanceof List<?> || target instanceof String) {
      List<Object> items = Builtins.iterate(target);
      long i = PyValues.integer(index);
      long at = i < 0 ? items.size() + i : i;
      if (at < 0 || at >= items.size()) {
        throw new RenderFailure("index " + i + " is out of range (" + items.size() + " items)");
      }
      return items.get((int) at);
    }
    return UNDEFINED;
  }

  private Object slice(Expression.Slice s) {
    Object target = eval(s.target());
    List<Object> items = Builtins.iterate(target);
    int n = items.size();
    long step = s.step() == null ? 1 : PyValues.integer(eval(s.step()));
    if (step == 0) {
      throw new RenderFailure("a slice step of 0");
    }
    long start = s.start() == null ? (step > 0 ? 0 : n - 1) : bound(eval(s.start()), n, step);
    long stop = s.stop() == null ? (step > 0 ? n : -1) : bound(eval(s.stop()), n, step);
    List<Object> out = new ArrayList<>();
    for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
      out.add(items.get((int) i));
    }
    if (target instanceof String) {
      StringBuilder text = new StringBuilder();
      out.forEach(x -> text.append((String) x));
      return text.toString();
    }
    return out;
  }

  /** Python's slice index adjustment. */
  private static long bound(Object value, int n, long step) {
    long i = PyValues.integer(value);
    if (i < 0) {
      i += n;
      if (i < 0) {
        i = step > 0 ? 0 : -1;
      }
    } else if (i >= n) {
      i = step > 0 ? n : n - 1;
    }
    return i;
  }

  private Object call(Expression.Call c) {
    List<Object> arguments = values(c.arguments());
    Map<String, Object> keywords = keywords(c.keywords());
    if (c.callee() instanceof Expression.Attribute a) {
      return Builtins.method(a.name(), eval(a.target()), arguments);
    }
    return Builtins.function(((Expression.Name) c.callee()).name(), arguments, keywords);
  }

  private Object binary(Expression.Binary b) {
    String op = b.operator();
    if (op.equals("or")) {
      Object left = eval(b.left());
      return PyValues.truthy(left) ? left : eval(b.right());
    }
    if (op.equals("and")) {
      Object left = eval(b.left());
      return PyValues.truthy(left) ? eval(b.right()) : left;
    }
    Object left = eval(b.left());
    Object right = eval(b.right());
    return switch (op) {
      case "==" -> PyValues.equal(left, right);
      case "!=" -> !PyValues.equal(left, right);
      case "<" -> PyValues.compare(defined(left), defined(right)) < 0;
      case ">" -> PyValues.compare(defined(left), defined(right)) > 0;
      case "<=" -> PyValues.compare(defined(left), defined(right)) <= 0;
      case ">=" -> PyValues.compare(defined(left), defined(right)) >= 0;
      case "in" -> PyValues.contains(defined(right), left);
      case "not in" -> !PyValues.contains(defined(right), left);
      case "~" -> PyValues.str(left) + PyValues.str(right);
      case "+" -> plus(defined(left), defined(right));
      default -> Arithmetic.apply(op, defined(left), defined(right));
    };
  }

  private static Object plus(Object left, Object right) {
    if (left instanceof String l && right instanceof String r) {
      return l + r;
    }
    if (left instanceof List<?> l && right instanceof List<?> r) {
      List<Object> out = new ArrayList<>(l);
      out.addAll(r);
      return out;
    }
    return Arithmetic.apply("+", left, right);
  }

  private static Object negate(Object v) {
    return v instanceof Double d ? -d : -PyValues.integer(defined(v));
  }

  private static Object defined(Object v) {
    if (v == UNDEFINED) {
      throw new RenderFailure("an undefined value used in an expression");
    }
    return v;
  }

  private List<Object> values(List<Expression> expressions) {
    List<Object> out = new ArrayList<>();
    expressions.forEach(x -> out.add(eval(x)));
    return out;
  }

  private Map<String, Object> keywords(Map<String, Expression> expressions) {
    Map<String, Object> out = new LinkedHashMap<>();
    expressions.forEach((k, x) -> out.put(k, eval(x)));
    return out;
  }
}
