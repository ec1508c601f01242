package io.tensafe.marketplace.bench;

import static io.restassured.RestAssured.given;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@code ./tensafe bench catalog}: catalogue search latency over 10,000 published adapters and the
 * throughput of one ~200 MB package upload, through the real HTTP stack, PostgreSQL and package
 * store, in this JVM. A measurement, not a test: it asserts nothing about time and runs only with
 * {@code -Dtensafe.bench=true}. Prints one JSON line.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(CatalogBenchmark.LargeUploads.class)
@EnabledIfSystemProperty(named = "tensafe.bench", matches = "true")
class CatalogBenchmark {
  static final int ADAPTERS = Integer.getInteger("tensafe.bench.adapters", 10_000);
  static final int UPLOAD_MB = Integer.getInteger("tensafe.bench.upload-mb", 200);
  static final int QUERIES = 400;

  /** Allows packages of a few hundred MB (tests normally cap uploads at 1 MB). */
  public static class LargeUploads implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("%test.tensafe.storage.max-package-bytes", "2147483648");
    }
  }

  @Inject EntityManager em;

  @Test
  void measure() throws Exception {
    String suffix = Actors.suffix();
    String creator = "bench-creator-" + suffix;
    FleetKeyPair fleet = FleetKeyPair.generate("bench-fleet-" + suffix, Actors.RANDOM);
    CreatorKeyPair key = CreatorKeyPair.generate("bench-" + suffix, Actors.RANDOM);
    Actors.registerFleet("bench-admin-" + suffix, fleet);
    Actors.registerKey(creator, key);
    Actors.upload(
        creator, Actors.pack("bench-seed-" + suffix, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
        .run(() -> seed("bench-seed-" + suffix, suffix));
    String client = Actors.token("bench-client-" + suffix, "client");

    String[][] queries = {
      {"q", "kw17"}, {"domain", "finance"}, {"sort", "price"}, {"q", "bench-" + suffix + "-42"}
    };
    for (int i = 0; i < 40; i++) { // warm-up
      search(client, queries[i % queries.length]);
    }
    double[] millis = new double[QUERIES];
    for (int i = 0; i < QUERIES; i++) {
      long start = System.nanoTime();
      search(client, queries[i % queries.length]);
      millis[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(millis);

    Path dir = Files.createTempDirectory("bench-upload");
    Path file = dir.resolve("big.tgsp");
    int layers = Math.max(1, (int) (UPLOAD_MB * 1_000_000L / (2L * 4096 * 64 * 4)));
    Path peft =
        new SyntheticAdapter(
                layers, 4096, 64, 16, List.of("q_proj"), DType.F32, "Qwen/Qwen2.5-1.5B")
            .write(dir.resolve("peft"), 1);
    AdapterPacker.pack(
        peft,
        options("bench-big-" + suffix),
        key,
        List.of(fleet.publicKey()),
        Actors.RANDOM,
        file,
        d -> {});
    long bytes = Files.size(file);
    long start = System.nanoTime();
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .contentType("application/octet-stream")
        .body(file.toFile())
        .post("/api/creator/packages")
        .then()
        .statusCode(201);
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "BENCH {\"adapters\":%d,\"queries\":%d,\"search_p50_ms\":%.2f,\"search_p99_ms\":%.2f,"
            + "\"upload_mb\":%.1f,\"upload_mb_s\":%.1f}%n",
        ADAPTERS,
        QUERIES,
        millis[QUERIES / 2],
        millis[(int) Math.ceil(QUERIES * 0.99) - 1],
        bytes / 1e6,
        bytes / 1e6 / seconds);
  }

  private static void search(String token, String[] param) {
    given()
        .auth()
        .oauth2(token)
        .queryParam(param[0], param[1])
        .get("/api/catalog")
        .then()
        .statusCode(200);
  }

  /** Inserts ADAPTERS published versions that reuse the seed version's key, fleet and policy. */
  void seed(String seedAdapter, String suffix) {
    em.createNativeQuery(
            "INSERT INTO adapter (id, creator_id, adapter_ref) SELECT gen_random_uuid(), a.creator_id,"
                + " 'bench-' || :s || '-' || g FROM adapter a, generate_series(1, :n) g WHERE"
                + " a.adapter_ref = :seed")
        .setParameter("s", suffix)
        .setParameter("n", ADAPTERS)
        .setParameter("seed", seedAdapter)
        .executeUpdate();
    em.createNativeQuery(
            "INSERT INTO adapter_version (id, adapter_id, version, version_major, version_minor,"
                + " version_patch, package_id, signing_key_id, fleet_id, base_model, rank, alpha,"
                + " scaling, target_modules, keywords, domain, licence, dp_policy_id, manifest,"
                + " package_sha256, package_bytes, state, uploaded_by, published_at) SELECT"
                + " gen_random_uuid(), a.id, '1.0.0', 1, 0, 0, gen_random_uuid(), s.signing_key_id,"
                + " s.fleet_id, s.base_model, 8, 16, 'alpha_over_rank', s.target_modules,"
                + " ARRAY['kw' || (random() * 500)::int, 'bank'], (ARRAY['finance', 'legal',"
                + " 'medical', 'retail'])[1 + (random() * 3)::int], 'proprietary', s.dp_policy_id,"
                + " '{}'::jsonb, md5(a.id::text) || md5(a.adapter_ref), 1000, 'published',"
                + " s.uploaded_by, now() FROM adapter a, adapter_version s, adapter sa WHERE"
                + " a.adapter_ref LIKE 'bench-' || :s || '-%' AND sa.adapter_ref = :seed AND"
                + " s.adapter_id = sa.id")
        .setParameter("s", suffix)
        .setParameter("seed", seedAdapter)
        .executeUpdate();
    em.createNativeQuery(
            "INSERT INTO adapter_price (adapter_version_id, currency, prompt_micros_per_1k_tokens,"
                + " completion_micros_per_1k_tokens, effective_from, created_by) SELECT v.id, 'USD',"
                + " 1 + (random() * 5000)::int, 1 + (random() * 5000)::int, now(), v.uploaded_by FROM"
                + " adapter_version v JOIN adapter a ON a.id = v.adapter_id WHERE a.adapter_ref LIKE"
                + " 'bench-' || :s || '-%'")
        .setParameter("s", suffix)
        .executeUpdate();
    em.createNativeQuery("ANALYZE").executeUpdate();
  }

  private static PackOptions options(String adapterId) {
    return new PackOptions(
        UUID.randomUUID().toString(),
        new Manifest.Adapter(adapterId, "1.0.0"),
        Optional.empty(),
        Optional.empty(),
        new Manifest.Routing(List.of("bench"), "finance"),
        new Manifest.Price("USD", 1000, 1000),
        "proprietary",
        new Manifest.DpPolicy(
            BigDecimal.ONE, new BigDecimal("1.1"), new BigDecimal("0.00001"), BigDecimal.TEN, 30),
        Optional.empty(),
        OptionalInt.empty(),
        64 << 10,
        Instant.now());
  }
}
