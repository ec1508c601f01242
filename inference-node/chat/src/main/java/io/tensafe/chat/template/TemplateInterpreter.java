package io.tensafe.chat.template;

import static io.tensafe.chat.template.PyValues.UNDEFINED;

import io.tensafe.chat.template.PyValues.RenderFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a compiled template over a context, with Jinja2's scoping: each loop iteration has a scope
 * of its own (so {@code set} inside a loop does not outlive it), {@code if} does not. Output is
 * capped at {@link #MAX_OUTPUT_CHARS}.
 */
final class TemplateInterpreter {
  /** The longest rendering allowed, in UTF-16 chars: far above any prompt a node accepts. */
  static final int MAX_OUTPUT_CHARS = 16 * 1024 * 1024;

  private enum Flow {
    NORMAL,
    BREAK,
    CONTINUE
  }

  private static final class Scope {
    final Scope parent;
    final Map<String, Object> names = new HashMap<>();

    Scope(Scope parent) {
      this.parent = parent;
    }

    Object lookup(String name) {
      for (Scope s = this; s != null; s = s.parent) {
        if (s.names.containsKey(name)) {
          return s.names.get(name);
        }
      }
      return UNDEFINED;
    }
  }

  private final StringBuilder out = new StringBuilder();
  private int line;

  /** The line being run, for error messages. */
  int line() {
    return line;
  }

  String run(List<TemplateNode> body, Map<String, Object> context) {
    Scope root = new Scope(null);
    root.names.putAll(context);
    run(body, root);
    return out.toString();
  }

  private Flow run(List<TemplateNode> body, Scope scope) {
    for (TemplateNode node : body) {
      Flow flow = run(node, scope);
      if (flow != Flow.NORMAL) {
        return flow;
      }
    }
    return Flow.NORMAL;
  }

  private Flow run(TemplateNode node, Scope scope) {
    switch (node) {
      case TemplateNode.Text t -> write(t.text());
      case TemplateNode.Output o -> {
        line = o.line();
        write(PyValues.str(eval(o.expression(), scope)));
      }
      case TemplateNode.If i -> {
        for (TemplateNode.Branch b : i.branches()) {
          if (PyValues.truthy(eval(b.condition(), scope))) {
            return run(b.body(), scope);
          }
        }
        return run(i.otherwise(), scope);
      }
      case TemplateNode.For f -> {
        return loop(f, scope);
      }
      case TemplateNode.Set s -> {
        line = s.line();
        scope.names.put(s.name(), eval(s.value(), scope));
      }
      case TemplateNode.SetAttribute s -> {
        line = s.line();
        if (!(scope.lookup(s.name()) instanceof PyValues.Namespace ns)) {
          throw new RenderFailure("'" + s.name() + "' is not a namespace");
        }
        ns.attributes.put(s.attribute(), eval(s.value(), scope));
      }
      case TemplateNode.Break b -> {
        return Flow.BREAK;
      }
      case TemplateNode.Continue c -> {
        return Flow.CONTINUE;
      }
    }
    return Flow.NORMAL;
  }

  private Flow loop(TemplateNode.For f, Scope scope) {
    line = f.line();
    List<Object> items = new ArrayList<>();
    for (Object item : Builtins.iterate(eval(f.iterable(), scope))) {
      if (f.filter() == null
          || PyValues.truthy(eval(f.filter(), bind(f, item, new Scope(scope))))) {
        items.add(item);
      }
    }
    if (items.isEmpty()) {
      return run(f.otherwise(), scope);
    }
    for (int i = 0; i < items.size(); i++) {
      Scope iteration = bind(f, items.get(i), new Scope(scope));
      iteration.names.put("loop", loopVariable(items, i));
      if (run(f.body(), iteration) == Flow.BREAK) {
        break;
      }
    }
    return Flow.NORMAL;
  }

  private static Scope bind(TemplateNode.For f, Object item, Scope scope) {
    if (f.targets().size() == 1) {
      scope.names.put(f.targets().get(0), item);
      return scope;
    }
    if (!(item instanceof List<?> tuple) || tuple.size() != f.targets().size()) {
      throw new RenderFailure("cannot unpack " + PyValues.typeName(item) + " into " + f.targets());
    }
    for (int i = 0; i < tuple.size(); i++) {
      scope.names.put(f.targets().get(i), tuple.get(i));
    }
    return scope;
  }

  private static Map<String, Object> loopVariable(List<Object> items, int i) {
    Map<String, Object> loop = new LinkedHashMap<>();
    int n = items.size();
    loop.put("index0", (long) i);
    loop.put("index", (long) i + 1);
    loop.put("revindex0", (long) (n - 1 - i));
    loop.put("revindex", (long) (n - i));
    loop.put("first", i == 0);
    loop.put("last", i == n - 1);
    loop.put("length", (long) n);
    loop.put("previtem", i > 0 ? items.get(i - 1) : UNDEFINED);
    loop.put("nextitem", i < n - 1 ? items.get(i + 1) : UNDEFINED);
    return loop;
  }

  private void write(String text) {
    if (out.length() + text.length() > MAX_OUTPUT_CHARS) {
      throw new RenderFailure("the rendering exceeds " + MAX_OUTPUT_CHARS + " characters");
    }
    out.append(text);
  }

  private Object eval(Expression e, Scope scope) {
    return new ExpressionEvaluator(name -> scope.lookup(name)).eval(e);
  }
}
