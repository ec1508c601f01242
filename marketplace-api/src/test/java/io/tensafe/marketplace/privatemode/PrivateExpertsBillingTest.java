package io.tensafe.marketplace.privatemode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import io.tensafe.marketplace.gateway.ServedVersions;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.peft.BaseModelShape;
import io.tensafe.tgsp.peft.ExpertShape;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Private sessions on an adapter of a Qwen3-MoE model's routed experts: the client sends every
 * expert's sites at every token (hiding which experts were routed), so every adapted site is noised
 * once per token, and the budget is reserved and settled for all of them, as for a dense adapter;
 * hosted mode counts only the experts a token runs.
 *
 * <p>The model: 4 layers, every second sparse but layer 3, 4 experts of width 24, 2 per token. The
 * adapter: q, gate, up and down projections of layers 0 (dense) and 1 (sparse), so 4 + 1 + 4 × 3 =
 * 17 {@code lora_A} tensors; a token runs 2 of layer 1's 4 experts, so the attention and routed
 * sites alone are 4 + 1 + 2 × 3 = 11.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(PrivateSessionHarness.SmallFrames.class)
class PrivateExpertsBillingTest extends PrivateSessionHarness {
  static final String MOE = "tensafe/qwen3-tiny-moe";
  static final int EVERY_SITE = 17;
  static final int ROUTED_SITES = 11;

  @Inject ServedVersions versions;

  String experts;

  /**
   * The fake node, registered for the MoE model with its shape, and the experts adapter, published
   * at z = 50 in the fixture's fleet.
   */
  @BeforeEach
  void anExpertsAdapterAndAMoeNode() throws Exception {
    Actors.registerNode(
            fixture.nodeToken(),
            fixture.fleet(),
            "node-moe",
            "{\"fleetId\":\"fleet-"
                + fixture.suffix()
                + "\",\"name\":\"node-moe\",\"baseModels\":[\""
                + MOE
                + "\"],\"accelerator\":\"cpu\",\"maxConcurrency\":4,\"url\":\""
                + node.url()
                + "\",\"loadedAdapters\":[],\"dispatchToken\":\""
                + node.dispatchToken
                + "\",\"modelShape\":{\"hiddenSize\":64,\"intermediateSize\":128,\"layers\":4,"
                + "\"attentionHeads\":4,\"keyValueHeads\":2,\"headDim\":16,\"experts\":{"
                + "\"experts\":4,\"expertsPerToken\":2,\"intermediateSize\":24,\"sparseStep\":2,"
                + "\"mlpOnlyLayers\":[3]}}}")
        .then()
        .statusCode(200);
    CreatorKeyPair key = CreatorKeyPair.generate("acme-" + fixture.suffix(), Actors.RANDOM);
    Actors.registerKey("creator-" + fixture.suffix(), key);
    BaseModelShape shape =
        new BaseModelShape(64, 128, 4, 4, 2, 16, new ExpertShape(4, 2, 24, 2, List.of(3)));
    java.nio.file.Path peft =
        SyntheticAdapter.fitting(
                shape,
                2,
                4,
                8,
                List.of("q_proj", "gate_proj", "up_proj", "down_proj"),
                DType.F32,
                MOE)
            .write(Files.createTempDirectory("moe").resolve("peft"), 1);
    experts = "experts-" + fixture.suffix();
    Actors.upload(
        "creator-" + fixture.suffix(),
        Actors.pack(
            peft, experts, "1.0.0", fixture.fleet(), key, List.of("bank"), "50", 1500, 2000));
    given()
        .auth()
        .oauth2(Actors.token("creator-" + fixture.suffix(), "creator"))
        .post("/api/creator/adapters/" + experts + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    fixture.offerPrivateMode(experts, 1_000_000, 30);
    serve(experts);
  }

  private Response openExperts() {
    return openSession(
        "{\"model\":\""
            + experts
            + "\",\"max_tokens\":4,\"max_prompt_tokens\":8,\"frame_key_wrap\":\""
            + PrivateSessionHarness.WRAP
            + "\",\"public_keys\":[\""
            + KEY
            + "\"]}");
  }

  /** The manifest's expert sites, and the counts each mode meters by. */
  @Test
  void theVersion_noisesEveryExpertsSites_whereHostedModeCountsTheRoutedOnes() {
    List<?> names =
        em.createNativeQuery(
                "SELECT t->>'name' FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id,"
                    + " jsonb_array_elements(v.manifest->'lora'->'tensors') t"
                    + " WHERE a.adapter_ref = ?1 AND t->>'name' LIKE '%.lora_A.weight'")
            .setParameter(1, experts)
            .getResultList();
    assertEquals(EVERY_SITE, names.size());
    for (int e = 0; e < 4; e++) {
      for (String m : List.of("gate_proj", "up_proj", "down_proj")) {
        assertTrue(
            names.contains(
                "base_model.model.model.layers.1.mlp.experts." + e + "." + m + ".lora_A.weight"),
            "expert " + e + "'s " + m);
      }
    }
    assertEquals(EVERY_SITE, versions.noisedSitesPerToken(experts, "1.0.0"));
    java.util.Set<String> modules =
        versions.adaptedModules(
            (java.util.UUID)
                em.createNativeQuery(
                        "SELECT v.id FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id"
                            + " WHERE a.adapter_ref = ?1")
                    .setParameter(1, experts)
                    .getSingleResult());
    assertEquals(EVERY_SITE, modules.size());
    assertTrue(modules.contains("model.layers.1.mlp.experts.3.gate_proj"), modules.toString());
    assertTrue(modules.contains("model.layers.0.self_attn.q_proj"), modules.toString());
    // Hosted: every site of layer 0 and layer 1's q, and gate, up and down of the 2 experts a
    // token runs (ADR 0035: one release per noised site and token, in both modes).
    assertEquals(ROUTED_SITES, versions.releasesPerToken(experts, "1.0.0"));
  }

  /**
   * A node that plans to noise only the attention and routed experts' sites (11), hosted mode's
   * releases per token, or fewer (7), is refused with 502 and the session refunded; the node's plan
   * must be every {@code lora_A} site, every expert's included (17).
   */
  @Test
  void aNodeThatPlansOnlyTheRoutedExperts_isRefused_everyExpertsSitesAreOpened() {
    for (int planned : List.of(ROUTED_SITES, 3 + 1 + 1 + 2)) {
      node.claimedSites = planned;
      openExperts()
          .then()
          .statusCode(502)
          .contentType("application/problem+json")
          // Fixed text naming the version only; the node's count goes to the log (ADR 0038).
          .body(
              "detail", containsString("does not run each site " + experts + "@1.0.0 adapts once"))
          .body("detail", not(containsString("noises")));
      String id = node.opened.getLast().path("session_id").asText();
      assertEquals("node_failed", request(id)[1]);
      assertEquals(EVERY_SITE * 12L, releases(id, "reserve"));
      // ρ in millionths: (8 + 4) × 17 / 5000 = 0.0408, all given back.
      assertEquals(40800, rhoMillionths(id, "refund"), "refunded");
      assertEquals(List.of(), charged(id));
      assertTrue(node.closed.contains(id));
    }
    node.claimedSites = null;
    openExperts()
        .then()
        .statusCode(201)
        .body("model", equalTo(experts + "@1.0.0"))
        .body("terms.noised_sites_per_token", equalTo(EVERY_SITE));
  }

  /**
   * The node's count is a cross-check, never the bill: a node that claims every site (17) but lists
   * only the attention sites and the experts a token routes to (layer 1's experts 0 and 1: 11
   * sites) would serve part of the adapter billed as the whole. The marketplace checks the plan's
   * sites against the manifest itself and refuses it with 502 before any frame, the session
   * refunded.
   */
  @Test
  void aNodeThatListsOnlyTheRoutedExpertsButClaimsEverySite_isRefused_andRefunded() {
    node.listed =
        all ->
            all.stream()
                .filter(p -> !p.contains(".experts.2.") && !p.contains(".experts.3."))
                .toList();
    assertEquals(
        ROUTED_SITES,
        node.listed.apply(FakePrivateNode.manifestModules(em, experts)).size(),
        "the attention and routed experts' sites");
    openExperts()
        .then()
        .statusCode(502)
        .contentType("application/problem+json")
        .body("title", equalTo("Node failed"))
        .body("detail", containsString("does not run each site " + experts))
        .body("detail", not(containsString("model.layers")))
        .body("detail", containsString("nothing was billed"));
    assertRefusedAndRefunded(node.opened.getLast().path("session_id").asText());
    assertEquals(1, node.opened.size(), "not failed over: the node's plan is a lie, not a fault");
  }

  /**
   * A plan that lists a site the version does not adapt (in place of one it does, or besides all of
   * them) or one site twice is refused as well, whatever count it claims; an honest plan opens.
   */
  @Test
  void aNodeThatListsASiteTheVersionDoesNotAdapt_orOneTwice_isRefused() {
    String foreign = "model.layers.2.self_attn.q_proj";
    String down = "model.layers.1.mlp.experts.3.down_proj";
    record Lie(UnaryOperator<List<String>> listed, List<String> said) {}
    List<Lie> lies =
        List.of(
            new Lie(
                all -> all.stream().map(p -> p.equals(down) ? foreign : p).toList(),
                List.of(
                    "lists 1 site (" + foreign + ") that the version does not adapt",
                    "leaves out 1 site (" + down + ") of the version's 17")),
            new Lie(
                all -> concat(all, List.of(foreign)),
                List.of("lists 1 site (" + foreign + ") that the version does not adapt")),
            new Lie(
                all ->
                    concat(
                        all.stream().filter(p -> !p.equals(down)).toList(),
                        List.of(all.getFirst())),
                List.of(
                    "lists 1 site (model.layers.0.mlp.down_proj) more than once",
                    "leaves out 1 site (" + down + ")")));
    for (Lie lie : lies) {
      node.listed = lie.listed();
      ValidatableResponse answer =
          openExperts().then().statusCode(502).contentType("application/problem+json");
      // What the plan got wrong goes to the log; the client gets fixed text (ADR 0038).
      answer.body("detail", containsString("does not run each site " + experts));
      for (String said : lie.said()) {
        answer.body("detail", not(containsString(said)));
      }
      assertRefusedAndRefunded(node.opened.getLast().path("session_id").asText());
    }
    // Three lies in a row tripped the node's breaker (ADR 0038): closed here, as after its time.
    io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE node SET failure_streak = 0, tripped_until = NULL"
                            + " WHERE id = (SELECT node_id FROM gateway_request"
                            + " WHERE request_id = CAST(?1 AS uuid))")
                    .setParameter(1, node.opened.getLast().path("session_id").asText())
                    .executeUpdate());
    node.listed = all -> all;
    openExperts().then().statusCode(201).body("plan.groups.size()", equalTo(6));
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** Session {@code id} ended node_failed before any frame, its reservation refunded, no charge. */
  private void assertRefusedAndRefunded(String id) {
    assertEquals("node_failed", request(id)[1]);
    assertEquals(EVERY_SITE * 12L, releases(id, "reserve"));
    // ρ in millionths: (8 + 4) × 17 / 5000 = 0.0408, all given back.
    assertEquals(40800, rhoMillionths(id, "refund"), "refunded");
    assertEquals(0, releases(id, "settle"));
    assertEquals(List.of(), charged(id));
    assertTrue(node.closed.contains(id), "closed on the node");
    assertTrue(node.frames.isEmpty(), "no frame relayed");
  }

  /**
   * As a dense adapter's (PrivateSessionBillingTest), the budget is noised sites × ρ = 1/(2z²) per
   * token run, every expert's sites counted: at z = 50, reserved (8 + 4) × 17 / 5000 and settled,
   * for 5 prompt tokens and 3 generated (7 tokens run), 7 × 17 / 5000.
   */
  @Test
  void theBudget_isChargedForEveryExpertsSites_perTokenRun() {
    String id = openExperts().then().statusCode(201).extract().path("id");
    step(id, 0, 5);
    step(id, 1, 1);
    step(id, 2, 1);
    close(id).then().statusCode(200).body("usage.completion_tokens", equalTo(3));
    assertEquals(12 * EVERY_SITE, releases(id, "reserve"));
    assertEquals(7 * EVERY_SITE, releases(id, "settle"));
    // ρ in millionths: 204 / 5000 = 0.0408 and 119 / 5000 = 0.0238.
    assertEquals(40800, rhoMillionths(id, "reserve"));
    assertEquals(23800, rhoMillionths(id, "settle"));
    assertEquals(List.of(5L, 3L), charged(id));
  }
}
