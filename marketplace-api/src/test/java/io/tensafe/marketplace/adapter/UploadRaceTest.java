package io.tensafe.marketplace.adapter;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Concurrent duplicate uploads and a body cut off mid-stream lose nothing and leave nothing. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class UploadRaceTest {
  @Inject EntityManager em;

  @TestHTTPResource("/")
  URL base;

  @Test
  void concurrentDuplicateUploads_oneWinsTheOtherIsRefused() throws Exception {
    String suffix = Actors.suffix();
    String creator = "creator-" + suffix;
    Actors.Seller seller = Actors.seller(suffix, creator);
    FleetKeyPair fleet = seller.fleet();
    CreatorKeyPair key = seller.key();
    byte[] pkg = Actors.pack("adapter-" + suffix, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B");
    String token = Actors.token(creator, "creator");
    Callable<Integer> upload =
        () ->
            given()
                .auth()
                .oauth2(token)
                .contentType("application/octet-stream")
                .body(pkg)
                .post("/api/creator/packages")
                .then()
                .extract()
                .statusCode();
    List<Integer> statuses = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        futures.add(pool.submit(upload));
      }
      for (Future<Integer> f : futures) {
        statuses.add(f.get());
      }
    }
    assertEquals(1, statuses.stream().filter(s -> s == 201).count(), statuses.toString());
    assertEquals(3, statuses.stream().filter(s -> s == 409).count(), statuses.toString());
    long rows =
        em.createQuery(
                "select count(v) from AdapterVersion v, Adapter a where v.adapterId = a.id and a.adapterRef = :r",
                Long.class)
            .setParameter("r", "adapter-" + suffix)
            .getSingleResult();
    assertEquals(1, rows);
    assertIncomingEmpty();
  }

  @Test
  void bodyCutOffMidStream_leavesNoFileBehind() throws Exception {
    String creator = "creator-" + Actors.suffix();
    Actors.registerKey(creator, CreatorKeyPair.generate("cut-" + Actors.suffix(), Actors.RANDOM));
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /api/creator/packages HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                  + Actors.token(creator, "creator")
                  + "\r\nContent-Type: application/octet-stream\r\nContent-Length: 500000\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[100_000]);
      out.flush();
    } // closed with 400,000 bytes missing
    for (int i = 0; i < 50 && !incomingEmpty(); i++) {
      Thread.sleep(100);
    }
    assertIncomingEmpty();
  }

  private static boolean incomingEmpty() throws Exception {
    Path incoming = Path.of("target/test-packages/.incoming");
    if (!Files.exists(incoming)) {
      return true;
    }
    try (var files = Files.list(incoming)) {
      return files.findAny().isEmpty();
    }
  }

  private static void assertIncomingEmpty() throws Exception {
    assertTrue(incomingEmpty(), "an upload left a partial file in .incoming");
  }
}
