package io.tensafe.marketplace.report;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.text.PDFTextStripper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Billing reports on real PostgreSQL: invoices, payout statements and the revenue summary, as JSON,
 * CSV and PDF, each reconciled to the charge ledger to the micro-unit.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class ReportTest {
  @Inject ChargeLedger ledger;
  @Inject EntityManager em;

  String suffix;
  String creatorA;
  String creatorB;
  String adapterA;
  String adapterB;
  String clientUser;
  UUID clientOrg;
  UUID otherOrg;
  OffsetDateTime from;
  OffsetDateTime to;

  @BeforeEach
  void twoCreatorsTwoClientsAndTheirCharges() throws Exception {
    suffix = Actors.suffix();
    creatorA = "creator-a-" + suffix;
    creatorB = "creator-b-" + suffix;
    adapterA = "report-a-" + suffix;
    adapterB = "report-b-" + suffix;
    FleetKeyPair fleet = FleetKeyPair.generate("fleet-" + suffix, Actors.RANDOM);
    CreatorKeyPair keyA = CreatorKeyPair.generate("acme-" + suffix, Actors.RANDOM);
    CreatorKeyPair keyB = CreatorKeyPair.generate("bcme-" + suffix, Actors.RANDOM);
    Actors.registerFleet("admin-" + suffix, fleet);
    Actors.registerKey(creatorA, keyA);
    Actors.registerKey(creatorB, keyB);
    Actors.upload(creatorA, Actors.pack(adapterA, "1.0.0", fleet, keyA, "Qwen/Qwen2.5-0.5B"));
    Actors.upload(creatorB, Actors.pack(adapterB, "1.0.0", fleet, keyB, "Qwen/Qwen2.5-0.5B"));
    clientUser = "client-" + suffix;
    getAs(Actors.token(clientUser, "client"), "/api/organisations").then().statusCode(200);
    clientOrg =
        (UUID)
            em.createNativeQuery("SELECT organisation_id FROM app_user WHERE oidc_subject = :u")
                .setParameter("u", clientUser)
                .getSingleResult();
    otherOrg = Actors.clientOrganisation(em, "other-" + suffix);
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    from = now.minusMinutes(5);
    to = now.plusMinutes(5);
    for (int i = 0; i < 12; i++) {
      String adapter = i % 3 == 0 ? adapterB : adapterA;
      charge("inv-" + suffix + "-" + i, clientOrg, adapter, 100 + 37 * i, 11 + 13 * i, now);
    }
    charge("oth-" + suffix, otherOrg, adapterA, 999, 333, now);
  }

  private void charge(
      String id, UUID org, String adapter, long prompt, long completion, OffsetDateTime at) {
    ledger.record(new NewCharge(id, org, null, adapter, "1.0.0", prompt, completion, at, null));
  }

  private Map<String, Object> params(String format) {
    Map<String, Object> p = new HashMap<>();
    p.put("from", from.toString());
    p.put("to", to.toString());
    if (format != null) {
      p.put("format", format);
    }
    return p;
  }

  /**
   * Sums of the ledger rows of the period matching {@code where}: count, amount, creator, platform.
   */
  private long[] ledger(String where, Map<String, Object> binds) {
    var q =
        em.createNativeQuery(
            "SELECT count(*), coalesce(sum(c.amount_micros), 0), coalesce(sum(c.creator_micros), 0),"
                + " coalesce(sum(c.platform_micros), 0), coalesce(sum(c.completion_tokens), 0)"
                + " FROM charge c JOIN adapter_version v ON v.id = c.adapter_version_id"
                + " JOIN adapter a ON a.id = v.adapter_id"
                + " WHERE c.started_at >= :from AND c.started_at < :to AND "
                + where);
    q.setParameter("from", from).setParameter("to", to);
    binds.forEach(q::setParameter);
    Object[] r = (Object[]) q.getSingleResult();
    long[] out = new long[r.length];
    for (int i = 0; i < r.length; i++) {
      out[i] = ((Number) r[i]).longValue();
    }
    return out;
  }

  @Test
  void invoice_linesPerAdapterReconcileToTheLedgerAndHideTheSplit() {
    JsonPath json =
        given()
            .auth()
            .oauth2(Actors.token(clientUser, "client"))
            .queryParams(params(null))
            .get("/api/client/reports/invoice")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    long[] expected = ledger("c.client_organisation_id = :o", Map.of("o", clientOrg));
    assertEquals(12, expected[0]);
    assertEquals("invoice", json.getString("kind"));
    List<Map<String, Object>> all = json.getList("lines");
    List<Map<String, Object>> lines =
        all.stream().filter(l -> l.get("dimension").equals("adapter")).toList();
    assertEquals(
        List.of(adapterA + "@1.0.0", adapterB + "@1.0.0"),
        lines.stream().map(l -> l.get("key")).toList());
    // Then one line per mode: every seeded request ran hosted.
    List<Map<String, Object>> modes =
        all.stream().filter(l -> l.get("dimension").equals("mode")).toList();
    assertEquals(List.of("hosted"), modes.stream().map(l -> l.get("key")).toList());
    assertEquals(12, ((Number) modes.getFirst().get("requests")).longValue());
    assertEquals(8, ((Number) lines.get(0).get("requests")).longValue());
    assertEquals(4, ((Number) lines.get(1).get("requests")).longValue());
    long sum = lines.stream().mapToLong(l -> ((Number) l.get("amountMicros")).longValue()).sum();
    assertEquals(expected[1], sum);
    assertEquals(expected[1], json.getLong("totals[0].amountMicros"));
    assertEquals(expected[4], json.getLong("totals[0].completionTokens"));
    assertFalse(lines.get(0).containsKey("creatorMicros"), "a client does not see the split");
  }

  @Test
  void invoice_csvAndPdf_carryTheSameTotals() throws Exception {
    long[] expected = ledger("c.client_organisation_id = :o", Map.of("o", clientOrg));
    String csv =
        given()
            .auth()
            .oauth2(Actors.token(clientUser, "client"))
            .queryParams(params("csv"))
            .get("/api/client/reports/invoice")
            .then()
            .statusCode(200)
            .contentType(startsWith("text/csv"))
            .header("Content-Disposition", startsWith("attachment; filename=\"tensafe-invoice-"))
            .extract()
            .asString();
    String[] rows = csv.split("\r\n");
    assertEquals(
        "dimension,key,currency,requests,prompt_tokens,completion_tokens,amount_micros", rows[0]);
    assertEquals(5, rows.length, csv); // two adapters, one mode, the total
    assertTrue(rows[3].startsWith("mode,hosted,"), csv);
    String[] total = rows[4].split(",");
    assertEquals("total", total[0]);
    assertEquals(Long.toString(expected[1]), total[6]);
    assertEquals(
        expected[1], Long.parseLong(rows[1].split(",")[6]) + Long.parseLong(rows[2].split(",")[6]));

    byte[] pdf =
        given()
            .auth()
            .oauth2(Actors.token(clientUser, "client"))
            .queryParams(params("pdf"))
            .get("/api/client/reports/invoice")
            .then()
            .statusCode(200)
            .contentType("application/pdf")
            .extract()
            .asByteArray();
    try (PDDocument doc = Loader.loadPDF(pdf)) {
      String text = new PDFTextStripper().getText(doc);
      assertTrue(text.contains("TenSafe - Invoice"), text);
      assertTrue(text.contains(adapterA + "@1.0.0"), text);
      assertTrue(text.contains(PdfReports.money(expected[1])), text);
      assertFalse(text.contains("Platform"), text);
    }
  }

  @Test
  void payout_onlyTheCreatorsAdapters_splitAddsUp() {
    JsonPath json =
        given()
            .auth()
            .oauth2(Actors.token(creatorA, "creator"))
            .queryParams(params(null))
            .get("/api/creator/reports/payout")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    long[] expected = ledger("a.adapter_ref = :a", Map.of("a", adapterA));
    assertEquals(9, expected[0]); // 8 for the client, 1 for the other organisation
    assertEquals(
        List.of(adapterA + "@1.0.0"),
        json.getList("lines.findAll { it.dimension == 'adapter' }.key"));
    assertEquals(List.of("hosted"), json.getList("lines.findAll { it.dimension == 'mode' }.key"));
    assertEquals(expected[1], json.getLong("totals[0].amountMicros"));
    assertEquals(expected[2], json.getLong("totals[0].creatorMicros"));
    assertEquals(expected[3], json.getLong("totals[0].platformMicros"));
    assertEquals(
        json.getLong("totals[0].amountMicros"),
        json.getLong("totals[0].creatorMicros") + json.getLong("totals[0].platformMicros"));
  }

  @Test
  void revenue_everyDimensionSumsToTheLedgerTotal() {
    String admin = Actors.token("admin-" + suffix, "admin");
    JsonPath json =
        given()
            .auth()
            .oauth2(admin)
            .queryParams(params(null))
            .get("/api/admin/reports/revenue")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    List<Map<String, Object>> lines = json.getList("lines");
    List<Map<String, Object>> totals = json.getList("totals");
    for (String dimension : List.of("adapter", "creator", "client", "node", "day", "mode")) {
      for (Map<String, Object> total : totals) {
        long amount = 0;
        long creator = 0;
        long requests = 0;
        for (Map<String, Object> l : lines) {
          if (l.get("dimension").equals(dimension)
              && l.get("currency").equals(total.get("currency"))) {
            amount += ((Number) l.get("amountMicros")).longValue();
            creator += ((Number) l.get("creatorMicros")).longValue();
            requests += ((Number) l.get("requests")).longValue();
          }
        }
        assertEquals(((Number) total.get("amountMicros")).longValue(), amount, dimension);
        assertEquals(((Number) total.get("creatorMicros")).longValue(), creator, dimension);
        assertEquals(((Number) total.get("requests")).longValue(), requests, dimension);
      }
    }
    long[] all = ledger("true", Map.of());
    assertEquals(
        all[1], totals.stream().mapToLong(t -> ((Number) t.get("amountMicros")).longValue()).sum());
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.get("dimension").equals("client") && l.get("key").equals("other-" + suffix)));
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.get("dimension").equals("creator") && l.get("key").equals("bcme-" + suffix)));
    assertTrue(
        lines.stream()
            .anyMatch(
                l -> l.get("dimension").equals("node") && l.get("key").equals("(not dispatched)")));

    given()
        .auth()
        .oauth2(admin)
        .queryParams(params("pdf"))
        .get("/api/admin/reports/revenue")
        .then()
        .statusCode(200)
        .contentType("application/pdf");
    given()
        .auth()
        .oauth2(admin)
        .queryParams(params("csv"))
        .queryParam("organisation", "other-" + suffix)
        .get("/api/admin/reports/invoice")
        .then()
        .statusCode(200)
        .body(org.hamcrest.Matchers.containsString(adapterA + "@1.0.0,USD,1,999,333,"));
    given()
        .auth()
        .oauth2(admin)
        .queryParams(params(null))
        .queryParam("creator", "bcme-" + suffix)
        .get("/api/admin/reports/payout")
        .then()
        .statusCode(200)
        .body(
            "lines.findAll { it.dimension == 'adapter' }.key",
            equalTo(List.of(adapterB + "@1.0.0")));
  }

  @Test
  void badRequests_getProblems() {
    String client = Actors.token(clientUser, "client");
    given()
        .auth()
        .oauth2(client)
        .queryParams(params("xml"))
        .get("/api/client/reports/invoice")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", equalTo("format must be json, csv or pdf"));
    given()
        .auth()
        .oauth2(client)
        .queryParam("from", to.toString())
        .queryParam("to", from.toString())
        .get("/api/client/reports/invoice")
        .then()
        .statusCode(400)
        .body("detail", equalTo("from must be before to"));
    given()
        .auth()
        .oauth2(client)
        .queryParam("organisation", "other-" + suffix)
        .get("/api/client/reports/invoice")
        .then()
        .statusCode(404);
    getAs(client, "/api/admin/reports/revenue").then().statusCode(403);
    String admin = Actors.token("admin-" + suffix, "admin");
    getAs(admin, "/api/admin/reports/invoice").then().statusCode(400);
    given()
        .auth()
        .oauth2(admin)
        .queryParam("organisation", "nobody-" + suffix)
        .get("/api/admin/reports/invoice")
        .then()
        .statusCode(404);
    getAs(Actors.token("new-" + suffix, "creator"), "/api/creator/reports/payout")
        .then()
        .statusCode(404);
  }

  @Test
  void emptyPeriod_zeroLinesAndNoTotals() {
    given()
        .auth()
        .oauth2(Actors.token(clientUser, "client"))
        .queryParam("from", from.minusDays(3).toString())
        .queryParam("to", from.minusDays(2).toString())
        .queryParam("format", "pdf")
        .get("/api/client/reports/invoice")
        .then()
        .statusCode(200);
    given()
        .auth()
        .oauth2(Actors.token(clientUser, "client"))
        .queryParam("from", from.minusDays(3).toString())
        .queryParam("to", from.minusDays(2).toString())
        .get("/api/client/reports/invoice")
        .then()
        .statusCode(200)
        .body("lines.size()", equalTo(0))
        .body("totals.size()", equalTo(0));
  }
}
