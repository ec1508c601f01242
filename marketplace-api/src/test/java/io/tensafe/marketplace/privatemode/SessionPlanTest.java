package io.tensafe.marketplace.privatemode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The node's open answer as {@link SessionPlan} reads it: every group's site paths, bounded (1 to 3
 * sites, each a module path of at most 256 characters) before any is kept, and checked against the
 * version's adapted modules: each listed once, none other, none left out.
 */
class SessionPlanTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An open answer of one group per entry of {@code groups}, listing those paths. */
  private static ObjectNode answer(List<List<String>> groups, int noised) {
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode gs = answer.putArray("groups");
    for (List<String> paths : groups) {
      ObjectNode g = gs.addObject();
      ArrayNode sites = g.putArray("sites");
      for (String p : paths) {
        sites.addObject().put("path", p).put("input_width", 64).put("output_width", 64);
      }
      g.put("round_one_ciphertexts", 1)
          .put("round_two_ciphertexts", 3)
          .put("round_one_answers", 2)
          .put("round_two_answers", 1)
          .put("upload_bytes", 3);
    }
    answer.put("noised_sites_per_token", noised);
    return answer;
  }

  private static String refused(JsonNode answer) {
    return assertThrows(IllegalArgumentException.class, () -> SessionPlan.of(answer, 1 << 20))
        .getMessage();
  }

  @Test
  void thePlansSitePaths_areRead_inGroupOrder() {
    SessionPlan plan =
        SessionPlan.of(
            answer(
                List.of(
                    List.of("model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.v_proj"),
                    List.of("model.layers.1.mlp.experts.3.gate_proj")),
                3),
            1 << 20);
    assertEquals(
        List.of(
            "model.layers.0.self_attn.q_proj",
            "model.layers.0.self_attn.v_proj",
            "model.layers.1.mlp.experts.3.gate_proj"),
        plan.sitePaths());
    assertEquals(
        Optional.empty(),
        plan.mismatch(
            Set.of(
                "model.layers.1.mlp.experts.3.gate_proj",
                "model.layers.0.self_attn.v_proj",
                "model.layers.0.self_attn.q_proj")));
  }

  @Test
  void aGroupWithoutSites_orWithMoreThanThree_orAPathNotOfAModulesForm_isRefused() {
    assertTrue(refused(answer(List.of(List.of()), 1)).contains("groups[0].sites"));
    assertTrue(
        refused(answer(List.of(List.of("a.q_proj", "a.k_proj", "a.v_proj", "a.o_proj")), 4))
            .contains("1 to 3 sites"));
    ObjectNode noSites = answer(List.of(List.of("a.q_proj")), 1);
    ((ObjectNode) noSites.path("groups").get(0)).remove("sites");
    assertTrue(refused(noSites).contains("groups[0].sites"));
    ObjectNode numeric = answer(List.of(List.of("a.q_proj")), 1);
    ((ObjectNode) numeric.path("groups").get(0).path("sites").get(0)).put("path", 7);
    assertTrue(refused(numeric).contains("groups[0].sites[0].path"));
    for (String bad :
        List.of(
            "",
            "model.layers.0.self_attn.q_proj\n",
            "model.layers.0.self_attn.q_proj\"",
            "model layers",
            "m".repeat(SessionPlan.MAX_PATH_CHARS + 1))) {
      assertTrue(
          refused(answer(List.of(List.of("model.layers.0.mlp.up_proj"), List.of(bad)), 2))
              .contains("groups[1].sites[0].path is not a module path of 1 to 256"),
          bad);
    }
    assertEquals(
        List.of("m".repeat(SessionPlan.MAX_PATH_CHARS)),
        SessionPlan.of(answer(List.of(List.of("m".repeat(SessionPlan.MAX_PATH_CHARS))), 1), 64)
            .sitePaths());
  }

  @Test
  void aPlanListingASiteTwice_aSiteNotAdapted_orLeavingOneOut_isNotTheVersions() {
    Set<String> version =
        Set.of(
            "model.layers.0.self_attn.q_proj",
            "model.layers.0.self_attn.v_proj",
            "model.layers.1.self_attn.q_proj");
    String twice =
        SessionPlan.of(
                answer(
                    List.of(
                        List.of("model.layers.0.self_attn.q_proj"),
                        List.of("model.layers.0.self_attn.q_proj"),
                        List.of("model.layers.1.self_attn.q_proj")),
                    3),
                64)
            .mismatch(version)
            .orElseThrow();
    assertEquals(
        "lists 1 site (model.layers.0.self_attn.q_proj) more than once;"
            + " leaves out 1 site (model.layers.0.self_attn.v_proj) of the version's 3",
        twice);
    String foreign =
        SessionPlan.of(
                answer(
                    List.of(
                        List.of(
                            "model.layers.0.self_attn.q_proj",
                            "model.layers.0.self_attn.v_proj",
                            "model.layers.0.self_attn.k_proj"),
                        List.of("model.layers.1.self_attn.q_proj")),
                    4),
                64)
            .mismatch(version)
            .orElseThrow();
    assertEquals(
        "lists 1 site (model.layers.0.self_attn.k_proj) that the version does not adapt", foreign);
    String fewer =
        SessionPlan.of(answer(List.of(List.of("model.layers.0.self_attn.q_proj")), 3), 64)
            .mismatch(version)
            .orElseThrow();
    assertEquals(
        "leaves out 2 sites (model.layers.0.self_attn.v_proj, model.layers.1.self_attn.q_proj)"
            + " of the version's 3",
        fewer);
  }
}
