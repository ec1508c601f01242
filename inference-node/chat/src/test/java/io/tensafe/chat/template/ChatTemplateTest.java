package io.tensafe.chat.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.template.ChatTemplateException.Reason;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Jinja2 subset: whitespace control, scoping, Python semantics, and named refusals. */
class ChatTemplateTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String render(String template, Map<String, ?> variables) throws Exception {
    return ChatTemplate.compile(template).render(JSON.readTree("[]"), null, variables);
  }

  @Test
  void render_trimAndLstripBlocks_dropTagLinesAsHuggingFaceDoes() throws Exception {
    assertEquals(
        "a\nb\n", render("{% if true %}\n  a\n  {% endif %}\nb\n", Map.of()).replace("  ", ""));
    assertEquals("x  y", render("x  {% if true %}y{% endif %}", Map.of()));
    assertEquals("xy", render("x  {%- if true -%}  y{% endif %}", Map.of()));
  }

  @Test
  void render_setInsideLoop_doesNotOutliveIt_butNamespaceDoes() throws Exception {
    String t =
        "{% set x = 0 %}{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set x = i %}"
            + "{% set ns.n = ns.n + i %}{% endfor %}{{ x }} {{ ns.n }}";
    assertEquals("0 6", render(t, Map.of()));
  }

  @Test
  void render_pythonSemantics_matchJinja() throws Exception {
    assertEquals("cba", render("{{ 'abc'[::-1] }}", Map.of()));
    assertEquals("['a', 'b', '']", render("{{ 'a,b,'.split(',') }}", Map.of()));
    assertEquals("x", render("{{ '\\n\\nx\\n'.strip('\\n') }}", Map.of()));
    assertEquals(
        "None True 2.5 1e-05", render("{{ none }} {{ true }} {{ 5 / 2 }} {{ 0.00001 }}", Map.of()));
    assertEquals(
        "{\"a\": [1, 2.0, null, \"é\\n\"]}",
        render("{{ {'a': [1, 2.0, none, 'é\\n']} | tojson }}", Map.of()));
    assertEquals("2 b", render("{{ [1, 2] | length }} {{ ['a', 'b'] | last }}", Map.of()));
    assertEquals("yes", render("{{ 'yes' if 'b' in 'abc' and 3 > 2 else 'no' }}", Map.of()));
    assertEquals(
        "0-a 1-b ",
        render(
            "{% for k, v in {'a': 1, 'b': 2}.items() %}{{ loop.index0 }}-{{ k }} {% endfor %}",
            Map.of()));
    assertEquals(
        "1 3 ",
        render(
            "{% for i in range(5) if i is odd %}{{ i }} {% if i == 3 %}{% break %}{% endif %}{% endfor %}",
            Map.of()));
  }

  @Test
  void render_undefinedValues_areFalsyAndEmpty_butFailWhenUsed() throws Exception {
    assertEquals(
        "||no|", render("|{{ missing }}|{{ 'yes' if missing is defined else 'no' }}|", Map.of()));
    ChatTemplateException e =
        assertThrows(ChatTemplateException.class, () -> render("{{ missing + 'x' }}", Map.of()));
    assertEquals(Reason.RENDER, e.reason());
  }

  @Test
  void render_raiseException_failsWithTheTemplatesMessage() {
    ChatTemplateException e =
        assertThrows(
            ChatTemplateException.class,
            () -> render("{{ raise_exception('Roles must alternate') }}", Map.of()));
    assertEquals(Reason.RENDER, e.reason());
    assertTrue(e.getMessage().contains("Roles must alternate"), e.getMessage());
  }

  @Test
  void compile_unsupportedConstructs_areRefusedByName() {
    assertRefused("{% macro m() %}x{% endmacro %}", "'{% macro %}'");
    assertRefused("{{ x | wordcount }}", "'|wordcount'");
    assertRefused("{{ 'a'.zfill(3) }}", "'.zfill()'");
    assertRefused("{{ strftime_now('%d') }}", "'strftime_now()'");
    assertRefused("{% if x is divisibleby %}{% endif %}", "'is divisibleby'");
    assertRefused("line\n{% include 'x' %}", "line 2");
  }

  @Test
  void compile_malformedTemplates_areSyntaxErrors() {
    for (String t :
        new String[] {
          "{% if x %}", "{{ x ", "{% endif %}", "{{ (1 }}", "{% for in x %}{% endfor %}"
        }) {
      ChatTemplateException e =
          assertThrows(ChatTemplateException.class, () -> ChatTemplate.compile(t), t);
      assertEquals(Reason.SYNTAX, e.reason(), t);
    }
  }

  @Test
  void compile_templateOverTheLimit_isRefusedBeforeParsing() {
    String huge = "x".repeat(ChatTemplate.MAX_TEMPLATE_CHARS + 1);
    ChatTemplateException e =
        assertThrows(ChatTemplateException.class, () -> ChatTemplate.compile(huge));
    assertTrue(e.getMessage().contains("exceeds the limit"), e.getMessage());
  }

  private static void assertRefused(String template, String named) {
    ChatTemplateException e =
        assertThrows(ChatTemplateException.class, () -> ChatTemplate.compile(template));
    assertEquals(Reason.UNSUPPORTED, e.reason(), template);
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }
}
