package io.tensafe.marketplace.gateway;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.openai.GatewayFixture;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A replica that starts again serves none of the requests it had open, of either mode: it takes
 * them for lost at once, so that their node's reports or the next sweep end them without waiting
 * for the lost-after deadline.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class LiveRequestsTest {
  @Inject LiveRequests live;
  @Inject GatewayRequests requests;
  @Inject EntityManager em;

  @Test
  void aRestartedReplica_takesItsOpenRequestsOfBothModesForLost_andNoOtherReplicas()
      throws Exception {
    GatewayFixture f = GatewayFixture.create();
    Object[] key =
        (Object[])
            em.createNativeQuery("SELECT organisation_id, id FROM api_key WHERE prefix = ?1")
                .setParameter(1, f.apiKey().substring(0, 16))
                .getSingleResult();
    String mine = UUID.randomUUID().toString();
    String mySession = UUID.randomUUID().toString();
    String others = UUID.randomUUID().toString();
    QuarkusTransaction.requiringNew()
        .run(
            () -> {
              for (String id : new String[] {mine, mySession, others}) {
                requests.open(
                    id,
                    new GatewayRequests.Context(
                        (UUID) key[0],
                        (UUID) key[1],
                        f.adapterId(),
                        "1.0.0",
                        null,
                        OffsetDateTime.now(ZoneOffset.UTC),
                        false,
                        new GatewayRequests.Limits(10, 16, 10)),
                    null,
                    id.equals(mySession) ? RequestMode.PRIVATE : RequestMode.HOSTED);
              }
              em.createNativeQuery(
                      "UPDATE gateway_request SET replica = 'another-replica:8080'"
                          + " WHERE request_id = CAST(?1 AS uuid)")
                  .setParameter(1, others)
                  .executeUpdate();
            });
    OffsetDateTime deadline = OffsetDateTime.now().minusMinutes(10);
    assertFalse(requests.find(mine, deadline).orElseThrow().gatewayLost());
    assertFalse(requests.find(mySession, deadline).orElseThrow().gatewayLost());

    live.started(null);

    assertTrue(requests.find(mine, deadline).orElseThrow().gatewayLost());
    assertTrue(requests.find(mySession, deadline).orElseThrow().gatewayLost());
    assertFalse(requests.find(others, deadline).orElseThrow().gatewayLost());
  }
}
