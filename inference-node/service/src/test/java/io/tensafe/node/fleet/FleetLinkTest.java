package io.tensafe.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.adapter.FakeMarketplace;
import io.tensafe.node.marketplace.ClientCredentials;
import io.tensafe.node.marketplace.MarketplaceClient;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class FleetLinkTest {
  @Test
  void registersThenHeartbeats_withTheHeldAdapters_andReconnectsAfterAnOutage() throws Exception {
    List<String> logs = new CopyOnWriteArrayList<>();
    try (FakeMarketplace marketplace = new FakeMarketplace()) {
      MarketplaceClient client = marketplace.client();
      FleetLink link =
          new FleetLink(
              client,
              Map.of("fleetId", "fleet-a", "name", "node-1", "accelerator", "cpu"),
              name -> Map.of("challengeId", "c-" + name, "nonce", "n"),
              () -> List.of("bank-qa"),
              Duration.ofHours(1),
              logs::add);
      link.beat();
      link.beat();
      assertTrue(link.registered());
      assertEquals(1, link.heartbeats());
      assertTrue(marketplace.posts.get(0).startsWith("/api/node/register "));
      assertTrue(marketplace.posts.get(0).contains("\"loadedAdapters\":[\"bank-qa\"]"));
      assertTrue(marketplace.posts.get(0).contains("\"challengeId\":\"c-node-1\""));
      assertTrue(marketplace.posts.get(1).startsWith("/api/node/heartbeat "));
      marketplace.close();
      link.beat();
      assertFalse(link.registered());
      assertTrue(logs.getLast().startsWith("lost the marketplace"), logs.toString());
    }
  }

  @Test
  void aWrongSecret_isReportedNotHidden() throws Exception {
    List<String> logs = new CopyOnWriteArrayList<>();
    try (FakeMarketplace marketplace = new FakeMarketplace()) {
      HttpClient http = HttpClient.newHttpClient();
      FleetLink link =
          new FleetLink(
              new MarketplaceClient(
                  http,
                  marketplace.base(),
                  new ClientCredentials(http, marketplace.tokenUrl(), "node-a", "wrong")),
              Map.of("name", "node-1"),
              name -> Map.of(),
              List::of,
              Duration.ofHours(1),
              logs::add);
      link.beat();
      assertFalse(link.registered());
      assertTrue(logs.getLast().contains("token endpoint answered 401"), logs.toString());
    }
  }
}
