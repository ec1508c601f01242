package io.tensafe.marketplace.web;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Response;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.microsoft.playwright.options.AriaRole;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.marketplace.testing.RealKeycloak;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admin and creator pages in a real browser: Debian's Chromium through Playwright, signed in
 * through the real Keycloak's login form, against this marketplace on 127.0.0.1 with the real
 * PostgreSQL. Ledgers are seeded through the API and the charge ledger; every figure a test checks
 * on a page is compared with the database, not with a constant.
 */
@QuarkusTest
@TestProfile(RealKeycloak.Profile.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebUiBrowserTest {
  @TestHTTPResource("/")
  URL root;

  @Inject ChargeLedger ledger;
  @Inject EntityManager em;

  private final String suffix = Actors.suffix();
  private final String adapter = "ui-bank-" + suffix;
  private final String clientOrg = "ui-client-" + suffix;
  private FleetKeyPair fleet;
  private CreatorKeyPair key;
  private UUID clientOrgId;
  private Chromium chromium;

  @BeforeAll
  void seedLedgersAndLaunchChromium() throws Exception {
    Assumptions.assumeTrue(
        RealKeycloak.URL != null,
        "TENSAFE_KEYCLOAK_URL is not set: run through ./tensafe test, which starts Keycloak");
    // Quarkus points RestAssured at the test port only around each test method, not here.
    io.restassured.RestAssured.port = root.getPort();
    String admin = RealKeycloak.token("admin");
    String creator = RealKeycloak.token("creator");
    fleet = FleetKeyPair.generate("ui-fleet-" + suffix, Actors.RANDOM);
    Actors.registerFleetWith(admin, fleet);
    key = CreatorKeyPair.generate("ui-" + suffix, Actors.RANDOM);
    Actors.registerKeyWith(creator, key);
    Actors.uploadWith(creator, Actors.pack(adapter, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    given()
        .auth()
        .oauth2(creator)
        .post("/api/creator/adapters/" + adapter + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    Actors.registerNode(
            RealKeycloak.nodeToken(),
            fleet,
            "ui-node-" + suffix,
            """
            {"fleetId":"ui-fleet-%s","name":"ui-node-%s","baseModels":["Qwen/Qwen2.5-0.5B"],
             "accelerator":"cpu","maxConcurrency":4,"loadedAdapters":["%s"],
             "url":"http://127.0.0.1:9","dispatchToken":"%s"}"""
                .formatted(suffix, suffix, adapter, "t".repeat(43)))
        .then()
        .statusCode(200);
    // One usage report from the node: 13 tokens in 3.9 ms of HE, so 0.30 HE ms per token.
    postJson(
            RealKeycloak.nodeToken(),
            "/api/node/usage",
            """
            {"requestId":"%s","node":"ui-node-%s","adapterId":"%s","adapterVersion":"1.0.0",
             "promptTokens":5,"completionTokens":8,"finishReason":"stop","dpReleases":40,
             "dpNoiseMultiplier":1.1,"heCalls":26,"heEncryptions":40,"hePlaintextProducts":40,
             "heDecryptions":40,"heMillis":3.9,"totalMillis":20.0,
             "startedAt":"%s","finishedAt":"%s"}"""
                .formatted(
                    UUID.randomUUID(),
                    suffix,
                    adapter,
                    OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(2),
                    OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(1)))
        .then()
        .statusCode(201);
    clientOrgId = Actors.clientOrganisation(em, clientOrg);
    // History for the charts: the version's price as if set five days ago (seeded directly; the
    // API never back-dates a price), so charges of earlier days can be recorded.
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        """
                        INSERT INTO adapter_price (adapter_version_id, currency,
                          prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens,
                          effective_from, created_at, created_by)
                        SELECT p.adapter_version_id, p.currency, p.prompt_micros_per_1k_tokens,
                          p.completion_micros_per_1k_tokens, now() - interval '5 days',
                          now() - interval '5 days', p.created_by
                        FROM adapter_price p JOIN adapter_version v ON v.id = p.adapter_version_id
                          JOIN adapter a ON a.id = v.adapter_id
                        WHERE a.adapter_ref = :a
                        """)
                    .setParameter("a", adapter)
                    .executeUpdate());
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    for (int i = 0; i < 3; i++) {
      ledger.record(
          new NewCharge(
              "ui-today-" + suffix + "-" + i,
              clientOrgId,
              null,
              adapter,
              "1.0.0",
              1200,
              800,
              now.minusMinutes(i),
              i == 0 ? "keyword:bank" : null));
    }
    for (int i = 0; i < 2; i++) {
      ledger.record(
          new NewCharge(
              "ui-earlier-" + suffix + "-" + i,
              clientOrgId,
              null,
              adapter,
              "1.0.0",
              3000,
              1000,
              now.minusDays(2 + i),
              null));
    }
    postJson(
            admin,
            "/api/admin/budgets/top-ups",
            """
            {"organisation":"%s","adapter":"%s","epsilon":0.5,"reference":"seed-%s"}"""
                .formatted(clientOrg, adapter, suffix))
        .then()
        .statusCode(201);
    chromium = Chromium.launch("http://127.0.0.1:" + root.getPort());
  }

  @AfterAll
  void closeChromium() {
    if (chromium != null) {
      chromium.close();
    }
  }

  private long sql(String query, Object... params) {
    return QuarkusTransaction.requiringNew()
        .call(
            () -> {
              var q = em.createNativeQuery(query);
              for (int i = 0; i < params.length; i++) {
                q.setParameter(i + 1, params[i]);
              }
              return ((Number) q.getSingleResult()).longValue();
            });
  }

  /** 1 when the adapter is suspended, else 0. */
  private long suspended(String adapterRef) {
    return sql(
        "SELECT count(*) FROM adapter WHERE adapter_ref = ?1 AND suspended_at IS NOT NULL",
        adapterRef);
  }

  private static void assertText(Locator locator, String expected) {
    PlaywrightAssertions.assertThat(locator).hasText(expected);
  }

  private static void assertContains(Locator locator, String expected) {
    PlaywrightAssertions.assertThat(locator).containsText(expected);
  }

  @Test
  void admin_overview_showsTheLedgersFiguresAndCharts_atLaptopAndPhoneWidth() {
    OffsetDateTime midnight = LocalDate.now(ZoneOffset.UTC).atStartOfDay().atOffset(ZoneOffset.UTC);
    long today =
        sql(
            "SELECT coalesce(sum(amount_micros), 0) FROM charge WHERE currency = 'USD' AND started_at >= ?1",
            midnight);
    long period =
        sql(
            "SELECT coalesce(sum(amount_micros), 0) FROM charge WHERE currency = 'USD' AND started_at >= ?1",
            midnight.minusDays(13));
    assertTrue(today > 0 && period > today);
    long healthy = sql("SELECT count(*) FROM node");

    Page page = chromium.signIn("admin", "/admin");
    assertText(page.locator("h1"), "Overview");
    assertText(page.locator("[data-figure=revenue-today-USD]"), Formats.money(today, "USD"));
    assertText(page.locator("[data-figure=revenue-period-USD]"), Formats.money(period, "USD"));
    assertText(page.locator("[data-figure=nodes]"), healthy + " of " + healthy);
    assertEquals(3, page.locator("svg.chart").count(), "requests, tokens and USD revenue charts");
    assertContains(page.locator("svg.chart >> nth=0 >> desc"), "14 bars");
    Chromium.screenshot(page, "admin-overview");
    // Keyboard: the first Tab reaches the skip link.
    page.keyboard().press("Tab");
    assertEquals("Skip to content", page.evaluate("document.activeElement.textContent"));

    // "Refresh every 30 s": remembered by the browser, and the page reloads itself.
    page.clock().install();
    page.reload();
    page.getByLabel("Refresh every 30 s").check();
    page.evaluate("window.tensafeMarker = 1");
    page.clock().runFor(31_000);
    page.waitForFunction("() => window.tensafeMarker === undefined");
    PlaywrightAssertions.assertThat(page.getByLabel("Refresh every 30 s")).isChecked();
    page.getByLabel("Refresh every 30 s").uncheck();

    Page phone = chromium.signIn("admin", "/admin", 390, 844);
    assertText(phone.locator("[data-figure=revenue-today-USD]"), Formats.money(today, "USD"));
    assertEquals(
        Boolean.TRUE,
        phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth"),
        "no sideways scrolling at phone width");
    Chromium.screenshot(phone, "admin-overview-phone");

    page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Nodes").setExact(true))
        .click();
    Locator node = page.locator("[data-node=ui-node-" + suffix + "]");
    assertContains(node, "healthy");
    assertContains(node, "CPU");
    assertContains(node, "0 / 4");
    assertContains(node, adapter);
    assertContains(node, "0.30");
    Chromium.screenshot(page, "admin-nodes");
    page.navigate(chromium.url("/admin/adapters"));
    Locator row = page.locator("[data-adapter=" + adapter + "]");
    assertContains(row, "1.0.0 published");
    assertContains(row, Formats.money(sql("SELECT sum(amount_micros) FROM charge"), "USD"));
    Chromium.screenshot(page, "admin-adapters");
    page.navigate(chromium.url("/admin/clients"));
    Chromium.screenshot(page, "admin-clients");
    page.navigate(chromium.url("/admin/billing"));
    Chromium.screenshot(page, "admin-billing");
    page.navigate(chromium.url("/admin/audit"));
    Chromium.screenshot(page, "admin-audit");
    // A bad period is answered with the problem's own words, as a page.
    Response bad = page.navigate(chromium.url("/admin/billing?from=yesterday"));
    assertEquals(400, bad.status());
    assertContains(page.locator("[role=alert]"), "from must be a date like 2026-11-01");
    // Signing out ends the session: the pages ask for Keycloak's login again.
    page.navigate(chromium.url("/admin"));
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign out")).click();
    page.waitForURL(u -> u.startsWith(chromium.url("/?")) || u.equals(chromium.url("/")));
    assertContains(page.locator("h1"), "TenSafe marketplace");
    page.navigate(chromium.url("/admin"));
    PlaywrightAssertions.assertThat(page.locator("#username")).isVisible();
    page.context().close();
    phone.context().close();
  }

  @Test
  void admin_suspendsAndRestoresAnAdapter() {
    Page page = chromium.signIn("admin", "/admin/adapters");
    page.onDialog(dialog -> dialog.accept());
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Suspend " + adapter))
        .click();
    assertContains(page.locator("#flash"), "Adapter " + adapter + " suspended");
    assertContains(page.locator("[data-adapter=" + adapter + "]"), "suspended");
    assertEquals(1, suspended(adapter));

    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Restore " + adapter))
        .click();
    assertContains(page.locator("#flash"), "Adapter " + adapter + " restored");
    assertContains(page.locator("[data-adapter=" + adapter + "]"), "active");
    assertEquals(0, suspended(adapter));

    // The session cookie alone does not authorise a state change: without the X-Requested-With
    // header (which no cross-site form can send) the call is anonymous to the API.
    var request = page.context().request();
    String suspend = chromium.url("/api/admin/adapters/" + adapter + "/suspend");
    assertEquals(401, request.post(suspend).status());
    assertEquals(0, suspended(adapter));
    assertEquals(
        200,
        request.get(chromium.url("/api/admin/overview")).status(),
        "reads need no header: a cross-site page cannot read the answer");

    page.navigate(chromium.url("/admin/audit?q=" + adapter));
    assertContains(page.locator("table"), "suspend");
    // The page's search is the API's: the same rows as JSON.
    var audit = request.get(chromium.url("/api/admin/audit?q=" + adapter));
    assertEquals(200, audit.status());
    assertTrue(audit.text().contains("\"targetId\":\"" + adapter + "\""), audit.text());
    page.navigate(chromium.url("/admin/audit?q=no-such-entry-" + suffix));
    assertContains(page.locator("main"), ": 0.");
    page.context().close();
  }

  @Test
  void admin_seesClientsKeysByPrefixOnly_andTopsUpABudget() {
    var created =
        postJson(RealKeycloak.token("client"), "/api/client/api-keys", "{\"name\":\"ui test key\"}")
            .then()
            .statusCode(201)
            .extract()
            .jsonPath();
    String secret = created.getString("key");
    String prefix = created.getString("details.prefix");
    String keyOrg = created.getString("details.organisation");

    Page page = chromium.signIn("admin", "/admin/clients");
    assertContains(page.locator("[data-organisation=" + keyOrg + "]"), prefix);
    assertFalse(page.content().contains(secret), "the key's secret never reaches a page");
    Locator budget = page.locator("[data-budget=\"" + clientOrg + "/" + adapter + "\"]");
    double before =
        Double.parseDouble(
            budget.locator("[data-figure=epsilon-left]").textContent().replace(",", ""));
    // By keyboard only: type the amount, Tab past the reference to the button, press Enter.
    budget.getByLabel("Add ε").focus();
    page.keyboard().type("1.5");
    page.keyboard().press("Tab");
    page.keyboard().press("Tab");
    assertEquals("Top up", page.evaluate("document.activeElement.textContent"));
    page.keyboard().press("Enter");
    assertContains(page.locator("#flash"), "topped up");
    budget = page.locator("[data-budget=\"" + clientOrg + "/" + adapter + "\"]");
    double after =
        Double.parseDouble(
            budget.locator("[data-figure=epsilon-left]").textContent().replace(",", ""));
    assertTrue(after > before + 1, before + " → " + after);
    assertEquals(
        2,
        sql(
            "SELECT count(*) FROM dp_budget_event e JOIN dp_budget b ON b.id = e.budget_id"
                + " WHERE b.client_organisation_id = ?1 AND e.kind = 'top-up'",
            clientOrgId));
    page.context().close();
  }

  @Test
  void admin_downloadsAnInvoiceCsv_whoseTotalMatchesTheLedger() throws Exception {
    LocalDate last = LocalDate.now(ZoneOffset.UTC);
    LocalDate first = last.minusDays(6);
    long ledgerTotal =
        sql(
            "SELECT sum(amount_micros) FROM charge WHERE client_organisation_id = ?1"
                + " AND started_at >= ?2 AND started_at < ?3",
            clientOrgId,
            first.atStartOfDay().atOffset(ZoneOffset.UTC),
            last.plusDays(1).atStartOfDay().atOffset(ZoneOffset.UTC));
    Page page = chromium.signIn("admin", "/admin/billing?from=" + first + "&to=" + last);
    assertContains(
        page.locator("[data-invoice=" + clientOrg + "]"), Formats.money(ledgerTotal, "USD"));
    Download download =
        page.waitForDownload(() -> page.getByLabel("Invoice of " + clientOrg + " as CSV").click());
    Path file = download.path();
    String total =
        Files.readAllLines(file, StandardCharsets.UTF_8).stream()
            .filter(l -> l.startsWith("total,"))
            .findFirst()
            .orElseThrow();
    String[] cells = total.split(",");
    assertEquals("USD", cells[2]);
    assertEquals(5, Long.parseLong(cells[3]), "five seeded requests in the period");
    assertEquals(ledgerTotal, Long.parseLong(cells[6]));
    page.context().close();
  }

  @Test
  void creator_uploadsWithProgress_seesATamperedPackageRejected_andSchedulesAPrice()
      throws Exception {
    Page page = chromium.signIn("creator", "/creator/upload");
    Path good = Files.createTempFile("ui-", ".tgsp");
    Files.write(good, Actors.pack(adapter, "1.1.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    page.getByLabel("Package file (.tgsp)").setInputFiles(good);
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload and verify"))
        .click();
    assertText(page.locator("#result-title"), "Package verified and stored");
    assertContains(page.locator("#result-text"), adapter + " 1.1.0");
    assertEquals("100", page.locator("#upload-progress").evaluate("p => String(p.value)"));
    Chromium.screenshot(page, "creator-upload");

    byte[] tampered = Actors.pack(adapter, "1.2.0", fleet, key, "Qwen/Qwen2.5-0.5B");
    tampered[200] ^= 1; // inside the signed manifest
    Path bad = Files.createTempFile("ui-tampered-", ".tgsp");
    Files.write(bad, tampered);
    page.getByLabel("Package file (.tgsp)").setInputFiles(bad);
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload and verify"))
        .click();
    assertText(page.locator("#result-title"), "Package rejected");
    assertContains(page.locator("#result-text"), "Invalid signature");
    Chromium.screenshot(page, "creator-upload-rejected");
    assertEquals(
        0,
        sql(
            "SELECT count(*) FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id"
                + " WHERE a.adapter_ref = ?1 AND v.version = '1.2.0'",
            adapter));

    page.navigate(chromium.url("/creator"));
    String api = "/api/creator/adapters/" + adapter + "/versions/1.0.0/prices";
    DateTimeFormatter local = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm");
    page.getByLabel("Version").selectOption(api);
    page.getByLabel("Prompt price per 1,000 tokens").fill("0.75");
    page.getByLabel("Completion price per 1,000 tokens").fill("1.5");
    page.getByLabel("Effective from (your local time)")
        .fill(LocalDateTime.now().minusDays(1).format(local));
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Schedule price")).click();
    PlaywrightAssertions.assertThat(page.locator("#error")).isVisible();
    String refusal = page.locator("#error").textContent();
    assertFalse(refusal.isBlank());

    // A rise (from 0.0015 / 0.002 USD) needs seven days' notice: two days ahead is refused.
    page.getByLabel("Effective from (your local time)")
        .fill(LocalDateTime.now().plusDays(2).format(local));
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Schedule price")).click();
    assertContains(page.locator("#error"), "no sooner than 7 days");

    page.getByLabel("Effective from (your local time)")
        .fill(LocalDateTime.now().plusDays(8).format(local));
    page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Schedule price")).click();
    assertContains(page.locator("#flash"), "Price scheduled");
    Locator scheduled = page.locator("[data-scheduled=\"" + adapter + "@1.0.0\"]");
    assertContains(scheduled, "USD 0.75");
    assertContains(scheduled, "USD 1.50");
    assertEquals(
        1,
        sql(
            "SELECT count(*) FROM adapter_price p JOIN adapter_version v ON v.id = p.adapter_version_id"
                + " JOIN adapter a ON a.id = v.adapter_id WHERE a.adapter_ref = ?1"
                + " AND p.prompt_micros_per_1k_tokens = 750000 AND p.completion_micros_per_1k_tokens = 1500000"
                + " AND p.effective_from > now()",
            adapter));
    Chromium.screenshot(page, "creator-adapters");

    Page phone = chromium.signIn("creator", "/creator", 390, 844);
    assertEquals(
        Boolean.TRUE,
        phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth"),
        "no sideways scrolling at phone width (wide tables scroll inside their own box)");
    Chromium.screenshot(phone, "creator-adapters-phone");
    phone.context().close();

    page.navigate(chromium.url("/creator/sales"));
    long payout = sql("SELECT sum(creator_micros) FROM charge");
    assertContains(page.locator("[data-sales=" + adapter + "]"), Formats.money(payout, "USD"));
    Chromium.screenshot(page, "creator-sales");
    page.context().close();
  }

  @Test
  void creator_cannotOpenAdminPages_evenByUrl() {
    Page page = chromium.signIn("creator", "/creator");
    assertEquals(
        0, page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Billing")).count());
    for (String path :
        new String[] {"/admin", "/admin/billing", "/admin/clients", "/admin/audit"}) {
      Response response = page.navigate(chromium.url(path));
      assertEquals(403, response.status(), path);
      assertContains(page.locator("h1"), "Forbidden");
    }
    Chromium.screenshot(page, "creator-forbidden");
    var api = page.context().request().get(chromium.url("/api/admin/overview"));
    assertEquals(403, api.status());
    page.context().close();

    Page client = chromium.signIn("client", "/creator");
    assertContains(client.locator("h1"), "Forbidden");
    assertEquals(403, client.navigate(chromium.url("/admin")).status());
    client.context().close();
  }
}
