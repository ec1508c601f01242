package io.tensafe.marketplace.fleet;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Nodes register, send heartbeats and download the packages of their fleet. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class NodeFlowTest {
  String suffix;
  String nodeCredential;
  byte[] pkg;
  String adapterId;

  @BeforeEach
  void uploadAPackageForAFleet() throws Exception {
    suffix = Actors.suffix();
    Actors.Seller seller = Actors.seller(suffix, "creator-" + suffix);
    FleetKeyPair fleet = seller.fleet();
    CreatorKeyPair key = seller.key();
    adapterId = "adapter-" + suffix;
    pkg = Actors.pack(adapterId, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B");
    Actors.upload("creator-" + suffix, pkg);
    nodeCredential = "node-client-" + suffix;
    register(nodeCredential, fleet, "node-1").then().statusCode(200).body("healthy", equalTo(true));
  }

  private io.restassured.response.Response register(
      String credential, FleetKeyPair fleet, String name) throws Exception {
    return Actors.registerNode(
        Actors.token(credential, "node"),
        fleet,
        name,
        "{\"fleetId\":\""
            + fleet.publicKey().fleetId()
            + "\",\"name\":\""
            + name
            + "\",\"baseModels\":[\"Qwen/Qwen2.5-0.5B\"],"
            + "\"accelerator\":\"cpu\",\"maxConcurrency\":4,\"loadedAdapters\":[]}");
  }

  @Test
  void namesThatAreNotPublicIds_areRefusedByField() {
    postJson(
            Actors.token(nodeCredential, "node"),
            "/api/node/heartbeat",
            "{\"name\":\"Node 1\",\"loadedAdapters\":[\"ok\", \"-bad\"]}")
        .then()
        .statusCode(400)
        .body("errors.size()", equalTo(2))
        .body("errors.field", hasItem("name"));
  }

  @Test
  void heartbeat_updatesLoadedAdapters_andAdminSeesTheNode() {
    postJson(
            Actors.token(nodeCredential, "node"),
            "/api/node/heartbeat",
            "{\"name\":\"node-1\",\"loadedAdapters\":[\"" + adapterId + "\"]}")
        .then()
        .statusCode(200)
        .body("loadedAdapters", hasItem(adapterId));
    getAs(Actors.token("admin-" + suffix, "admin"), "/api/admin/nodes")
        .then()
        .statusCode(200)
        .body("items.fleetId", hasItem("fleet-" + suffix));
  }

  @Test
  void download_fullRangeAndConditional() throws Exception {
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(pkg));
    String url = "/api/node/packages/" + adapterId + "/1.0.0?node=node-1";
    byte[] body =
        getAs(Actors.token(nodeCredential, "node"), url)
            .then()
            .statusCode(200)
            .header("ETag", "\"" + sha + "\"")
            .header("Accept-Ranges", "bytes")
            .extract()
            .asByteArray();
    assertArrayEquals(pkg, body);
    byte[] part =
        given()
            .auth()
            .oauth2(Actors.token(nodeCredential, "node"))
            .header("Range", "bytes=10-109")
            .get(url)
            .then()
            .statusCode(206)
            .header("Content-Range", "bytes 10-109/" + pkg.length)
            .extract()
            .asByteArray();
    assertArrayEquals(Arrays.copyOfRange(pkg, 10, 110), part);
    given()
        .auth()
        .oauth2(Actors.token(nodeCredential, "node"))
        .header("If-None-Match", "\"" + sha + "\"")
        .get(url)
        .then()
        .statusCode(304);
    given()
        .auth()
        .oauth2(Actors.token(nodeCredential, "node"))
        .header("Range", "bytes=" + pkg.length + "-")
        .get(url)
        .then()
        .statusCode(416);
  }

  @Test
  void download_byANodeOfAnotherFleet_isNotFound() throws Exception {
    FleetKeyPair other = FleetKeyPair.generate("other-" + suffix, Actors.RANDOM);
    Actors.registerFleet("admin-" + suffix, other);
    String stranger = "stranger-" + suffix;
    register(stranger, other, "node-x").then().statusCode(200);
    getAs(Actors.token(stranger, "node"), "/api/node/packages/" + adapterId + "/1.0.0?node=node-x")
        .then()
        .statusCode(404)
        .contentType("application/problem+json");
  }

  @Test
  void nodeEndpoints_withoutNodeRole_areForbidden() {
    getAs(
            Actors.token("client-" + suffix, "client"),
            "/api/node/packages/" + adapterId + "/1.0.0?node=node-1")
        .then()
        .statusCode(403);
  }
}
