package io.tensafe.marketplace.organisation;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.specification.RequestSpecification;
import io.tensafe.marketplace.testing.Actors;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Organisations: create, list, members, and API keys that belong to one. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class OrganisationTest {
  String suffix;
  String owner;
  String colleague;
  String stranger;
  String slug;

  private static RequestSpecification as(String user) {
    return given().auth().oauth2(Actors.token(user, "client"));
  }

  @BeforeEach
  void createAnOrganisation() {
    suffix = Actors.suffix();
    owner = "owner-" + suffix;
    colleague = "colleague-" + suffix;
    stranger = "stranger-" + suffix;
    slug = "acme-" + suffix;
    for (String user : List.of(colleague, stranger)) {
      as(user).get("/api/organisations").then().statusCode(200); // first contact provisions them
    }
    as(owner)
        .contentType("application/json")
        .body("{\"slug\":\"" + slug + "\",\"displayName\":\" Acme Research \"}")
        .post("/api/organisations")
        .then()
        .statusCode(201)
        .body("role", equalTo("owner"))
        .body("displayName", equalTo("Acme Research"));
  }

  @Test
  void list_showsThePersonalOrganisationFirstThenTheNewOne() {
    var list = as(owner).get("/api/organisations").then().statusCode(200).extract().jsonPath();
    assertEquals(2, list.getInt("total"));
    assertEquals(true, list.getBoolean("items[0].personal"));
    assertEquals(slug, list.getString("items[1].slug"));
    assertEquals("owner", list.getString("items[1].role"));
  }

  @Test
  void adminLists_everyOrganisationAndPerson() {
    var organisations =
        given()
            .auth()
            .oauth2(Actors.token("admin-" + suffix, "admin"))
            .queryParam("size", 200)
            .queryParam("page", 0)
            .get("/api/admin/organisations")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    int pages = (int) Math.ceil(organisations.getLong("total") / 200.0);
    List<String> slugs = new java.util.ArrayList<>();
    for (int page = 0; page < pages; page++) {
      slugs.addAll(
          given()
              .auth()
              .oauth2(Actors.token("admin-" + suffix, "admin"))
              .queryParam("size", 200)
              .queryParam("page", page)
              .get("/api/admin/organisations")
              .then()
              .statusCode(200)
              .extract()
              .jsonPath()
              .getList("items.slug"));
    }
    assertTrue(slugs.contains(slug), "admin sees " + slug);
    long users =
        getAs(Actors.token("admin-" + suffix, "admin"), "/api/admin/users")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getLong("total");
    assertTrue(users >= 3, "owner, colleague and stranger exist: " + users);
  }

  @Test
  void create_takenReservedOrMalformedSlug_refusedWithProblems() {
    as(stranger)
        .contentType("application/json")
        .body("{\"slug\":\"" + slug + "\",\"displayName\":\"X\"}")
        .post("/api/organisations")
        .then()
        .statusCode(409)
        .contentType("application/problem+json");
    as(stranger)
        .contentType("application/json")
        .body("{\"slug\":\"org-mine-" + suffix + "\",\"displayName\":\"X\"}")
        .post("/api/organisations")
        .then()
        .statusCode(400);
    as(stranger)
        .contentType("application/json")
        .body("{\"slug\":\"Bad Slug\",\"displayName\":\"X\"}")
        .post("/api/organisations")
        .then()
        .statusCode(400)
        .contentType("application/problem+json");
  }

  @Test
  void members_ownerAddsAColleague_whoSeesItButCannotAddOthers() {
    as(owner)
        .contentType("application/json")
        .body("{\"username\":\"" + colleague + "\"}")
        .post("/api/organisations/" + slug + "/members")
        .then()
        .statusCode(201)
        .body("role", equalTo("member"));
    as(owner)
        .contentType("application/json")
        .body("{\"username\":\"" + colleague + "\"}")
        .post("/api/organisations/" + slug + "/members")
        .then()
        .statusCode(409);
    as(colleague)
        .get("/api/organisations/" + slug + "/members")
        .then()
        .statusCode(200)
        .body("total", equalTo(2));
    as(colleague)
        .contentType("application/json")
        .body("{\"username\":\"" + stranger + "\"}")
        .post("/api/organisations/" + slug + "/members")
        .then()
        .statusCode(403);
    as(stranger).get("/api/organisations/" + slug + "/members").then().statusCode(404);
    as(owner)
        .contentType("application/json")
        .body("{\"username\":\"no-such-user-" + suffix + "\"}")
        .post("/api/organisations/" + slug + "/members")
        .then()
        .statusCode(404);
  }

  @Test
  void apiKeys_belongToTheNamedOrganisation_andOnlyItsMembersSeeThem() {
    String key =
        as(owner)
            .contentType("application/json")
            .body("{\"name\":\"team key\",\"organisation\":\"" + slug + "\"}")
            .post("/api/client/api-keys")
            .then()
            .statusCode(201)
            .body("details.organisation", equalTo(slug))
            .extract()
            .path("key");
    String prefix = key.substring(0, 16);
    as(owner)
        .queryParam("organisation", slug)
        .get("/api/client/api-keys")
        .then()
        .statusCode(200)
        .body("items[0].prefix", equalTo(prefix));
    as(owner).get("/api/client/api-keys").then().statusCode(200).body("total", equalTo(0));
    as(stranger)
        .queryParam("organisation", slug)
        .get("/api/client/api-keys")
        .then()
        .statusCode(404);
    as(stranger)
        .contentType("application/json")
        .body("{\"name\":\"sneaky\",\"organisation\":\"" + slug + "\"}")
        .post("/api/client/api-keys")
        .then()
        .statusCode(404);
    as(stranger).delete("/api/client/api-keys/" + prefix).then().statusCode(404);
    as(owner)
        .contentType("application/json")
        .body("{\"username\":\"" + colleague + "\"}")
        .post("/api/organisations/" + slug + "/members")
        .then()
        .statusCode(201);
    as(colleague).delete("/api/client/api-keys/" + prefix).then().statusCode(204);
  }
}
