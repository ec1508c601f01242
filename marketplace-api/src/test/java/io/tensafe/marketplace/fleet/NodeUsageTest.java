package io.tensafe.marketplace.fleet;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.marketplace.usage.UsageEvents;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Nodes fetch creators' keys and report usage, recorded exactly once per request id. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class NodeUsageTest {
  @Inject UsageEvents events;

  String suffix;
  String credential;
  String adapterId;
  CreatorKeyPair key;
  FleetKeyPair fleet;

  @BeforeEach
  void registerANodeAndAnAdapter() throws Exception {
    suffix = Actors.suffix();
    Actors.Seller seller = Actors.seller(suffix, "creator-" + suffix);
    fleet = seller.fleet();
    key = seller.key();
    adapterId = "adapter-" + suffix;
    Actors.upload(
        "creator-" + suffix, Actors.pack(adapterId, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    credential = "node-client-" + suffix;
    register("node-1").then().statusCode(200);
  }

  private String report(String requestId, int completionTokens) {
    return """
        {"requestId":"%s","node":"node-1","adapterId":"%s","adapterVersion":"1.0.0",
         "promptTokens":7,"completionTokens":%d,"finishReason":"length","dpReleases":56,
         "dpNoiseMultiplier":1.1,"heCalls":64,"heEncryptions":56,"hePlaintextProducts":168,
         "heDecryptions":168,"heMillis":12.5,"totalMillis":40.25,
         "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01.5Z"}
        """
        .formatted(requestId, adapterId, completionTokens);
  }

  private io.restassured.response.Response post(String body) {
    return postJson(Actors.token(credential, "node"), "/api/node/usage", body);
  }

  @Test
  void creatorKeys_listTheRegisteredKeyDocuments() throws Exception {
    List<String> documents =
        getAs(Actors.token(credential, "node"), "/api/node/creator-keys")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getList("keys", String.class);
    List<String> ids = new ArrayList<>();
    for (String d : documents) {
      ids.add(
          KeyFiles.parseCreatorPublic("test", d.getBytes(java.nio.charset.StandardCharsets.UTF_8))
              .keyId());
    }
    org.junit.jupiter.api.Assertions.assertTrue(
        ids.contains(key.publicKey().keyId()), ids::toString);
  }

  @Test
  void usage_isRecordedOnce_resendsAreDuplicates_andAChangedReportConflicts() {
    String id = UUID.randomUUID().toString();
    post(report(id, 9)).then().statusCode(201).body("status", equalTo("recorded"));
    post(report(id, 9)).then().statusCode(200).body("status", equalTo("duplicate"));
    post(report(id, 10))
        .then()
        .statusCode(409)
        .contentType("application/problem+json")
        .body("status", equalTo(409));
    assertEquals(1, events.count(id));
  }

  @Test
  void usage_concurrentResendsOfOneReport_recordOneEvent() throws Exception {
    String id = UUID.randomUUID().toString();
    String body = report(id, 3);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        answers.add(pool.submit(() -> post(body).then().extract().statusCode()));
      }
      int recorded = 0;
      for (Future<Integer> a : answers) {
        int status = a.get();
        if (status == 201) {
          recorded++;
        } else {
          assertEquals(200, status);
        }
      }
      assertEquals(1, recorded);
    } finally {
      pool.shutdown();
    }
    assertEquals(1, events.count(id));
  }

  @Test
  void usage_badReports_getProblemJson() {
    String id = UUID.randomUUID().toString();
    post(report(id, 3).replace("\"1.0.0\"", "\"9.9.9\"")).then().statusCode(400);
    post(report(id, 3).replace("\"node-1\"", "\"node-unknown\"")).then().statusCode(404);
    post(report(id, 3).replace("\"length\"", "\"exploded\"")).then().statusCode(400);
    post(report(id, 3).replace(id, "not-a-uuid")).then().statusCode(400);
    post(report(id, -1)).then().statusCode(400);
    assertEquals(0, events.count(id));
  }

  @Test
  void aSuspendedNode_hasItsReportsRefused_andItsCredentialCannotRegisterAnotherName()
      throws Exception {
    String nodeId =
        getAs(Actors.token("admin-" + suffix, "admin"), "/api/admin/nodes?size=200")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getString("items.find { it.fleetId == 'fleet-" + suffix + "' }.id");
    given()
        .auth()
        .oauth2(Actors.token("admin-" + suffix, "admin"))
        .post("/api/admin/nodes/" + nodeId + "/suspend")
        .then()
        .statusCode(200);
    String id = UUID.randomUUID().toString();
    post(report(id, 3)).then().statusCode(403).contentType("application/problem+json");
    assertEquals(0, events.count(id));
    register("node-2").then().statusCode(403).contentType("application/problem+json");
  }

  /** Registers {@code name} in this test's fleet with its credential and a fleet proof. */
  private io.restassured.response.Response register(String name) throws Exception {
    return Actors.registerNode(
        Actors.token(credential, "node"),
        fleet,
        name,
        "{\"fleetId\":\"fleet-"
            + suffix
            + "\",\"name\":\""
            + name
            + "\",\"baseModels\":[\"Qwen/Qwen2.5-0.5B\"],"
            + "\"accelerator\":\"cpu\",\"maxConcurrency\":4}");
  }
}
