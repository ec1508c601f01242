package io.tensafe.node.tools.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.node.adapter.PeftAdapters;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.tools.demomodel.DemoModel;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.PackOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tensafe up}'s demo data. {@code demo keys --dir D} writes the demo fleet's and demo
 * creator's key pairs once (the node needs the fleet key before it starts). {@code demo seed} then,
 * through the real marketplace API with the realm's demo users: registers the fleet (admin),
 * registers the creator's key, packs the banking adapter (the demo model's trained one, or a random
 * one for another model folder) as a real signed and encrypted TGSP package, uploads and publishes
 * it (creator), creates an API key (client), waits until the node has registered, and prints {@code
 * OPENAI_BASE_URL} and {@code OPENAI_API_KEY}. Already-present data is reused, so a second {@code
 * up} is harmless.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Demo keys and data for ./tensafe up.",
    subcommands = {DemoCommand.Keys.class, DemoCommand.Seed.class})
public final class DemoCommand implements Runnable {
  static final String FLEET = "tensafe-demo";
  static final String CREATOR = "demo-bank";
  static final String ADAPTER = "demo-banking";

  /**
   * The demo adapter's version. 1.2.0 is the trained adapter of the trained demo model, packed
   * without DP noise and with its measured effect signed (ADR 0035); a database seeded with an
   * earlier version (random weights, noise multiplier 10 or 50) gets it published beside, and
   * requests use the newest.
   */
  static final String VERSION = "1.2.0";

  /**
   * The demo's clip norm C: above every LoRA input of the demo model on its banking prompts, so the
   * clip keeps the adapter's effect (measured, signed at pack; docs/benchmarks.md).
   */
  static final BigDecimal CLIP_NORM = BigDecimal.valueOf(64);

  /** The base model the demo adapter is packed for: the one `up` serves and the node reports. */
  static final String BASE_MODEL = DemoModel.BASE_MODEL;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** {@code demo keys --dir D}. */
  @Command(
      name = "keys",
      mixinStandardHelpOptions = true,
      description = "Writes the demo keys once.")
  static final class Keys implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "folder for the key files")
    Path dir;

    @Override
    public Integer call() throws Exception {
      Files.createDirectories(dir);
      SecureRandom random = new SecureRandom();
      if (!Files.exists(dir.resolve("fleet-private.json"))) {
        KeyFiles.writeFleetPrivate(
            FleetKeyPair.generate(FLEET, random), dir.resolve("fleet-private.json"));
      }
      if (!Files.exists(dir.resolve("creator-private.json"))) {
        KeyFiles.writeCreatorPrivate(
            CreatorKeyPair.generate(CREATOR, random), dir.resolve("creator-private.json"));
      }
      return 0;
    }
  }

  /** {@code demo seed --dir D --marketplace URL --keycloak URL}. */
  @Command(
      name = "seed",
      mixinStandardHelpOptions = true,
      description = "Registers, packs, uploads and publishes the demo data; prints the API key.")
  static final class Seed implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "folder of the demo key files")
    Path dir;

    @Option(names = "--marketplace", required = true, description = "marketplace base URL")
    URI marketplace;

    @Option(names = "--keycloak", required = true, description = "Keycloak base URL")
    URI keycloak;

    @Option(names = "--node", defaultValue = "demo-node-1", description = "the node to wait for")
    String node;

    @Option(
        names = "--model-dir",
        description =
            "the folder the node serves: the adapter is packed for its shape (for a Qwen3-MoE"
                + " folder, on attention and every expert); default: the tiny model's shape")
    Path modelDir;

    private static final Duration NODE_WAIT = Duration.ofSeconds(180);
    private static final Duration SERVICE_WAIT = Duration.ofSeconds(60);

    private final HttpClient http =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final ObjectMapper json = new ObjectMapper();

    @Override
    public Integer call() throws Exception {
      try {
        seed();
        return 0;
      } catch (IOException | RuntimeException e) {
        System.err.println(e instanceof IllegalStateException ? e.getMessage() : e.toString());
        return 1;
      }
    }

    private void seed() throws Exception {
      FleetKeyPair fleet = KeyFiles.readFleetPrivate(dir.resolve("fleet-private.json"));
      CreatorKeyPair creator = KeyFiles.readCreatorPrivate(dir.resolve("creator-private.json"));
      String admin = token("admin");
      String creatorToken = token("creator");
      String client = token("client");
      expect(
          post(
              admin,
              "api/admin/fleets",
              CanonicalJson.encode(KeyFiles.fleetPublicJson(fleet.publicKey()))),
          "registering the demo fleet",
          201,
          409);
      requireSameFleetKey(fleet);
      expect(
          post(
              creatorToken,
              "api/creator/keys",
              CanonicalJson.encode(KeyFiles.creatorPublicJson(creator.publicKey()))),
          "registering the demo creator key",
          201,
          409);
      HttpResponse<String> upload =
          send(
              request(creatorToken, "api/creator/packages")
                  .header("Content-Type", "application/octet-stream")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(pack(fleet, creator)))
                  .build());
      expect(upload, "uploading the demo adapter", 201, 409);
      expect(
          post(
              creatorToken,
              "api/creator/adapters/" + ADAPTER + "/versions/" + VERSION + "/publish",
              new byte[0]),
          "publishing the demo adapter",
          200,
          409);
      // Private mode is its creator's choice (issue 49): the demo offers it, a million tokens a
      // day.
      expect(
          send(
              request(
                      creatorToken,
                      "api/creator/adapters/" + ADAPTER + "/versions/" + VERSION + "/private-mode")
                  .header("Content-Type", "application/json")
                  .PUT(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"offered\":true,\"tokensPerPeriod\":1000000,\"periodDays\":1}"))
                  .build()),
          "offering private mode for the demo adapter",
          200);
      HttpResponse<String> key =
          post(
              client,
              "api/client/api-keys",
              "{\"name\":\"demo\"}".getBytes(StandardCharsets.UTF_8));
      expect(key, "creating the demo API key", 201);
      awaitNode(admin);
      System.out.println(
          "OPENAI_BASE_URL=" + marketplace.resolve("v1").toString().replaceAll("/$", ""));
      System.out.println("OPENAI_API_KEY=" + json.readTree(key.body()).path("key").asText());
    }

    /**
     * The demo's keys live beside the database they are registered in; a database seeded with other
     * keys (say, restored from elsewhere) cannot serve this node, so say how to start over.
     */
    private void requireSameFleetKey(FleetKeyPair fleet) throws Exception {
      HttpResponse<String> keys =
          send(HttpRequest.newBuilder(marketplace.resolve("/api/fleets/keys?size=200")).build());
      expect(keys, "listing the fleets", 200);
      for (JsonNode f : json.readTree(keys.body()).path("items")) {
        if (f.path("fleetId").asText().equals(FLEET)
            && !f.path("keyId").asText().equals(fleet.publicKey().keyId())) {
          throw new IllegalStateException(
              "the database already holds the demo fleet "
                  + FLEET
                  + " with another key than "
                  + dir
                  + "; start the demo over with ./tensafe down && ./tensafe db --reset");
        }
      }
    }

    private byte[] pack(FleetKeyPair fleet, CreatorKeyPair creator) throws Exception {
      Path work = Files.createTempDirectory("demo-adapter");
      try {
        LoraAdapter adapter = demoAdapter();
        Path peft = PeftAdapters.write(adapter, BASE_MODEL, work.resolve("peft"));
        PackOptions options =
            new PackOptions(
                UUID.randomUUID().toString(),
                new Manifest.Adapter(ADAPTER, VERSION),
                Optional.empty(),
                Optional.empty(),
                new Manifest.Routing(
                    List.of("bank", "mortgage", "loan", "deposit", "savings", "account"),
                    "finance"),
                new Manifest.Price("USD", 2000, 6000),
                "demo",
                // No DP noise (ADR 0035): at any noise multiplier that leaves the adapter's effect
                // visible the budget allows less than one token a month (docs/benchmarks.md, bench
                // utility); the demo offers private mode with a token quota instead.
                new Manifest.DpPolicy(
                    CLIP_NORM, BigDecimal.ZERO, new BigDecimal("0.00001"), BigDecimal.TEN, 30),
                Optional.empty(),
                OptionalInt.empty(),
                1 << 16,
                Instant.now());
        if (modelDir != null && Files.isDirectory(modelDir.resolve(DemoModel.ADAPTER_FOLDER))) {
          System.err.println("measuring the demo adapter's effect under its policy ...");
          options =
              options.withMeasuredEffect(
                  new io.tensafe.node.tools.utility.PackEffectMeasurer()
                      .measure(peft, modelDir, options.dpPolicy(), List.of()));
        }
        Path file = work.resolve("demo.tgsp");
        AdapterPacker.pack(
            peft, options, creator, List.of(fleet.publicKey()), new SecureRandom(), file, d -> {});
        return Files.readAllBytes(file);
      } finally {
        io.tensafe.tgsp.io.FileTrees.deleteRecursively(work);
      }
    }

    /**
     * The served folder's trained adapter ({@code demo-adapter/}, written by {@code ./tensafe model
     * demo}), read and checked as the node reads it. Otherwise a random one: rank 8 on every module
     * of the tiny shape or, for the served folder, on its layers' q, k, v, o and, on a Qwen3-MoE
     * folder, every expert's gate, up and down (ADR 0034).
     */
    private LoraAdapter demoAdapter() throws Exception {
      if (modelDir == null) {
        return LoraAdapter.random(ModelShape.TINY, LoraAdapter.ALL_MODULES, 8, 2.0, 0.3, 2026);
      }
      io.tensafe.node.model.ModelFolder folder = io.tensafe.node.model.ModelFolder.load(modelDir);
      Path trained = modelDir.resolve(DemoModel.ADAPTER_FOLDER);
      if (Files.isDirectory(trained)) {
        return PeftAdapters.read(trained, folder.shape().adapterShape(folder.moe().orElse(null)));
      }
      if (folder.moe().isEmpty()) {
        return LoraAdapter.random(folder.shape(), LoraAdapter.ALL_MODULES, 8, 2.0, 0.3, 2026);
      }
      return LoraAdapter.randomForAttention(folder.shape(), 8, 2.0, 0.3, 2026)
          .with(
              LoraAdapter.randomForExperts(folder.shape(), folder.moe().get(), 8, 2.0, 0.3, 2027));
    }

    private void awaitNode(String admin) throws Exception {
      long deadline = System.nanoTime() + NODE_WAIT.toNanos();
      while (System.nanoTime() < deadline) {
        HttpResponse<String> nodes = send(request(admin, "api/admin/nodes?size=200").GET().build());
        for (JsonNode n : json.readTree(nodes.body()).path("items")) {
          if (n.path("name").asText().equals(node) && n.path("healthy").asBoolean()) {
            return;
          }
        }
        Thread.sleep(1000);
      }
      throw new IllegalStateException(
          "the node "
              + node
              + " did not register with the marketplace within "
              + NODE_WAIT.toSeconds()
              + " s; see its log");
    }

    private String token(String user) throws Exception {
      String form =
          "grant_type=password&client_id=tensafe-web&username="
              + URLEncoder.encode(user, StandardCharsets.UTF_8)
              + "&password="
              + URLEncoder.encode(user, StandardCharsets.UTF_8);
      HttpResponse<String> r =
          send(
              HttpRequest.newBuilder(
                      keycloak.resolve("/realms/tensafe/protocol/openid-connect/token"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString(form))
                  .build());
      expect(r, "signing in as " + user, 200);
      return json.readTree(r.body()).path("access_token").asText();
    }

    private HttpRequest.Builder request(String token, String path) {
      return HttpRequest.newBuilder(marketplace.resolve("/" + path))
          .timeout(Duration.ofSeconds(60))
          .header("Authorization", "Bearer " + token);
    }

    private HttpResponse<String> post(String token, String path, byte[] body) throws Exception {
      return send(
          request(token, path)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build());
    }

    /**
     * Sends, retrying for up to {@link #SERVICE_WAIT} while the answer says the service is still
     * starting: no connection, 502/503/504, or 401 from a marketplace that has not yet fetched
     * Keycloak's signing keys. Every other answer is returned as it is.
     */
    private HttpResponse<String> send(HttpRequest r) throws Exception {
      long deadline = System.nanoTime() + SERVICE_WAIT.toNanos();
      while (true) {
        try {
          HttpResponse<String> answer = http.send(r, HttpResponse.BodyHandlers.ofString());
          int status = answer.statusCode();
          boolean starting = status == 401 || status == 502 || status == 503 || status == 504;
          if (!starting || System.nanoTime() > deadline) {
            return answer;
          }
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw new IOException(r.method() + " " + r.uri() + ": " + e, e);
          }
        }
        Thread.sleep(1000);
      }
    }

    private static void expect(HttpResponse<String> r, String what, int... ok) {
      for (int status : ok) {
        if (r.statusCode() == status) {
          return;
        }
      }
      throw new IllegalStateException(what + " failed: " + r.statusCode() + " " + r.body());
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new DemoCommand()).execute(args));
  }
}
