package io.tensafe.node.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.node.marketplace.MarketplaceClient;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.ChatMessage;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.LoraPath;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.node.runtime.TextGenerator;
import io.tensafe.node.runtime.TinyModel;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.safetensors.DType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Packages from the marketplace: verified, decrypted with the fleet key, checked, DP applied. */
class MarketplaceAdapterSourceTest {
  private static final SecureRandom RANDOM = new SecureRandom();
  @TempDir Path dir;
  FakeMarketplace marketplace;
  FleetKeyPair fleet;
  CreatorKeyPair creator;
  LoraAdapter adapter;
  AdapterRegistry registry;

  @BeforeEach
  void setUp() throws Exception {
    marketplace = new FakeMarketplace();
    fleet = FleetKeyPair.generate("fleet-a", RANDOM);
    creator = CreatorKeyPair.generate("acme", RANDOM);
    marketplace.keys.add(creator.publicKey());
    adapter = LoraAdapter.random(ModelShape.TINY, LoraAdapter.ALL_MODULES, 4, 2.0, 0.5, 9);
    MarketplaceClient client = marketplace.client();
    registry =
        new AdapterRegistry(
            new MarketplaceAdapterSource(client, "node-1", fleet, dir.resolve("cache")),
            ModelShape.TINY.adapterShape(),
            new HeOperators(new CpuBackend()),
            1L << 30);
  }

  @AfterEach
  void tearDown() {
    marketplace.close();
  }

  private byte[] pack(LoraAdapter lora, String version, CreatorKeyPair signer, FleetKeyPair to)
      throws Exception {
    return pack(lora, version, signer, to, "1.1");
  }

  /** As above, under a policy with this noise multiplier ("0": no noise). */
  private byte[] pack(
      LoraAdapter lora, String version, CreatorKeyPair signer, FleetKeyPair to, String z)
      throws Exception {
    Path peft = PeftAdapters.write(lora, "tiny", Files.createTempDirectory(dir, "peft"));
    PackOptions options =
        new PackOptions(
            UUID.randomUUID().toString(),
            new Manifest.Adapter("bank-qa", version),
            Optional.empty(),
            Optional.empty(),
            new Manifest.Routing(List.of("bank"), "finance"),
            new Manifest.Price("USD", 1500, 2000),
            "proprietary",
            new Manifest.DpPolicy(
                new BigDecimal("2.5"),
                new BigDecimal(z),
                new BigDecimal("0.00001"),
                BigDecimal.TEN,
                30),
            Optional.empty(),
            OptionalInt.empty(),
            4096,
            Instant.now());
    Path file = dir.resolve(UUID.randomUUID() + ".tgsp");
    AdapterPacker.pack(peft, options, signer, List.of(to.publicKey()), RANDOM, file, d -> {});
    return Files.readAllBytes(file);
  }

  @Test
  void load_verifiesDecryptsAndChecks_andTakesTheSignedDpPolicy() throws Exception {
    marketplace.packages.put("bank-qa/1.0.0", pack(adapter, "1.0.0", creator, fleet));
    LoadedAdapter loaded = registry.load(new AdapterKey("bank-qa", "1.0.0"));
    assertEquals(2.5, loaded.privacy().orElseThrow().clipNorm());
    assertEquals(1.1, loaded.privacy().orElseThrow().noiseMultiplier());
    LoraAdapter.Site expected = adapter.sites().get("model.layers.1.mlp.down_proj");
    LoraAdapter.Site got = loaded.prepared().adapter().sites().get("model.layers.1.mlp.down_proj");
    assertEquals(expected.scale(), got.scale(), 1e-12);
    assertEquals((float) expected.a()[3][100], got.a()[3][100]);
    assertEquals((float) expected.b()[63][2], got.b()[63][2]);
    assertEquals(adapter.sites().keySet(), loaded.prepared().adapter().sites().keySet());
    assertEquals(1, marketplace.tokensIssued, "one token, reused");
  }

  /**
   * A creator's policy without noise (z = 0, ADR 0035) loads, and the node generates with it as
   * {@code ModelService} does (hosted mode, the adapter's policy): two seeded requests at
   * temperature 0 give the same text, nothing is released, and the adapter still acts.
   */
  @Test
  void load_takesANoNoisePolicy_andSeededGreedyAnswersWithItRepeat() throws Exception {
    marketplace.packages.put("bank-qa/1.0.0", pack(adapter, "1.0.0", creator, fleet, "0"));
    LoadedAdapter loaded = registry.load(new AdapterKey("bank-qa", "1.0.0"));
    InputPrivacy policy = loaded.privacy().orElseThrow();
    assertEquals(0, policy.noiseMultiplier());
    assertFalse(policy.noised());
    try (TinyModel model = TinyModel.generate(DType.F32, 5);
        QwenTokenizer tokenizer = QwenTokenizer.load()) {
      TextGenerator generator =
          new TextGenerator(model.decoder(), tokenizer, new long[] {151645, 151643});
      long[] prompt =
          tokenizer.encode(
              ChatMessage.chatMl(
                  List.of(new ChatMessage("user", "Tell me about deposit insurance."))));
      SamplingParameters greedy = new SamplingParameters(0, 0, 1, 42, 10, List.of());
      LoraPath first = new LoraPath(loaded.prepared(), LoraPath.Mode.HE, policy);
      LoraPath second = new LoraPath(loaded.prepared(), LoraPath.Mode.HE, policy);
      Generation a = generator.generate(prompt, greedy, first, d -> {});
      Generation b = generator.generate(prompt, greedy, second, d -> {});
      assertEquals(a.text(), b.text());
      assertEquals(0, first.releases() + second.releases(), "z = 0 releases nothing");
      assertNotEquals(
          generator.generate(prompt, greedy, null, d -> {}).text(),
          a.text(),
          "the adapter must change the answer");
    }
  }

  @Test
  void load_refusesAnUnknownSignerAnotherFleetAndAMislabelledVersion() throws Exception {
    CreatorKeyPair stranger = CreatorKeyPair.generate("mallory", RANDOM);
    marketplace.packages.put("bank-qa/1.0.0", pack(adapter, "1.0.0", stranger, fleet));
    marketplace.packages.put(
        "bank-qa/1.1.0", pack(adapter, "1.1.0", creator, FleetKeyPair.generate("other", RANDOM)));
    marketplace.packages.put("bank-qa/1.2.0", pack(adapter, "2.0.0", creator, fleet));
    for (String version : List.of("1.0.0", "1.1.0", "1.2.0")) {
      AdapterRejectedException e =
          assertThrows(
              AdapterRejectedException.class,
              () -> registry.load(new AdapterKey("bank-qa", version)));
      assertTrue(e.getMessage().contains("bank-qa@" + version), e.getMessage());
    }
    assertEquals(List.of(), registry.held());
    assertThrows(
        UnknownAdapterException.class, () -> registry.load(new AdapterKey("bank-qa", "3.0.0")));
  }

  @Test
  void load_refusesAnAdapterForAnotherModelShape() throws Exception {
    LoraAdapter wide =
        LoraAdapter.random(ModelShape.QWEN25_1_5B, List.of("q_proj"), 2, 1.0, 0.1, 1);
    LoraAdapter oneLayer =
        new LoraAdapter(
            java.util.Map.of(
                "model.layers.0.self_attn.q_proj",
                wide.sites().get("model.layers.0.self_attn.q_proj")));
    marketplace.packages.put("bank-qa/1.0.0", pack(oneLayer, "1.0.0", creator, fleet));
    AdapterRejectedException e =
        assertThrows(
            AdapterRejectedException.class,
            () -> registry.load(new AdapterKey("bank-qa", "1.0.0")));
    assertTrue(e.getMessage().contains("maps 64 to 64"), e.getMessage());
  }
}
