package io.tensafe.marketplace.openai;

import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.gateway.GatewayRequests;
import io.tensafe.marketplace.gateway.RequestMode;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's report that meets a request's admission before it commits (ADR 0022; since ADR 0042 the
 * gateway sends the node a request only once its admission has committed, so this is a report sent
 * early by a node that guessed or replayed, or one that meets a private session's admission, which
 * is one transaction). Nothing may be lost or billed wrongly for it: a report that overtakes the
 * commit waits for it and then bills, and one for a request whose admission failed bills nothing.
 * (A request the budget refuses never reaches a node: {@code CompletionsTest}.)
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class DispatchBeforeCommitTest {
  @Inject EntityManager em;
  @Inject GatewayRequests requests;

  FakeNode node;

  @AfterEach
  void stopTheNode() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aReportThatOvertakesTheAdmissionsCommit_waitsForIt_thenFindsTheRequest() throws Exception {
    GatewayFixture f = fixtureWithNode();
    String requestId = UUID.randomUUID().toString();
    CompletableFuture<Integer> report = overtakingReport(f, requestId, true);
    assertEquals(201, report.get(20, TimeUnit.SECONDS));
    assertEquals(1L, count("SELECT count(*) FROM charge WHERE request_id = ?1", requestId));
  }

  @Test
  void aReportForARequestWhoseAdmissionRolledBack_isRecordedAndBillsNothing() throws Exception {
    GatewayFixture f = fixtureWithNode();
    String requestId = UUID.randomUUID().toString();
    CompletableFuture<Integer> report = overtakingReport(f, requestId, false);
    assertEquals(201, report.get(20, TimeUnit.SECONDS));
    assertEquals(0L, count("SELECT count(*) FROM charge WHERE request_id = ?1", requestId));
    assertEquals(
        0L,
        count(
            "SELECT count(*) FROM gateway_request WHERE request_id = CAST(?1 AS uuid)", requestId));
  }

  private GatewayFixture fixtureWithNode() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    node = new FakeNode();
    f.registerNode("node-" + f.suffix(), node.url(), List.of(f.adapterId()), 4, node.dispatchToken);
    return f;
  }

  /**
   * Opens {@code requestId} as the gateway's admission does, sends the node's report of it while
   * that transaction is open, checks that the report waits, then commits ({@code commit}) or rolls
   * back and returns the report's status.
   */
  private CompletableFuture<Integer> overtakingReport(
      GatewayFixture f, String requestId, boolean commit) throws Exception {
    Object[] key =
        (Object[])
            em.createNativeQuery("SELECT organisation_id, id FROM api_key WHERE prefix = ?1")
                .setParameter(1, f.apiKey().substring(0, 16))
                .getSingleResult();
    UUID nodeId =
        (UUID)
            em.createNativeQuery("SELECT id FROM node WHERE name = ?1")
                .setParameter(1, "node-" + f.suffix())
                .getSingleResult();
    CountDownLatch opened = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<Void> admission =
        CompletableFuture.runAsync(
            () -> {
              try {
                QuarkusTransaction.requiringNew()
                    .run(
                        () -> {
                          requests.open(
                              requestId,
                              new GatewayRequests.Context(
                                  (UUID) key[0],
                                  (UUID) key[1],
                                  f.adapterId(),
                                  "1.0.0",
                                  null,
                                  OffsetDateTime.now(ZoneOffset.UTC),
                                  false,
                                  new GatewayRequests.Limits(100, 16, 5)),
                              nodeId,
                              RequestMode.HOSTED);
                          // It relayed text (a lost request bills only what its gateway
                          // recorded, ADR 0038)...
                          requests.relayed(requestId, 2);
                          // ... and its gateway then died (it never vouched for it since): the
                          // only case in which a node's report bills a request (ADR 0026).
                          em.createNativeQuery(
                                  "UPDATE gateway_request SET active_at = now() - interval '1 hour'"
                                      + " WHERE request_id = CAST(?1 AS uuid)")
                              .setParameter(1, requestId)
                              .executeUpdate();
                          opened.countDown();
                          await(finish);
                          if (!commit) {
                            throw new IllegalStateException("the reservation failed");
                          }
                        });
              } catch (IllegalStateException rolledBack) {
                // as the gateway's admission when the budget refuses
              }
            });
    assertTrue(opened.await(20, TimeUnit.SECONDS));
    CompletableFuture<Integer> report = CompletableFuture.supplyAsync(() -> report(f, requestId));
    Thread.sleep(500);
    assertFalse(report.isDone(), "the report waited for the admission's end");
    finish.countDown();
    admission.get(20, TimeUnit.SECONDS);
    return report;
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(20, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int report(GatewayFixture f, String requestId) {
    return postJson(
            f.nodeToken(),
            "/api/node/usage",
            """
            {"requestId":"%s","node":"node-%s","adapterId":"%s","adapterVersion":"1.0.0",
             "promptTokens":5,"completionTokens":3,"finishReason":"stop","dpReleases":7,
             "dpNoiseMultiplier":50,"heCalls":1,"heEncryptions":1,"hePlaintextProducts":1,
             "heDecryptions":1,"heMillis":1.0,"totalMillis":1.0,
             "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01Z"}
            """
                .formatted(requestId, f.suffix(), f.adapterId()))
        .statusCode();
  }

  private long count(String sql, String requestId) {
    return ((Number) em.createNativeQuery(sql).setParameter(1, requestId).getSingleResult())
        .longValue();
  }
}
