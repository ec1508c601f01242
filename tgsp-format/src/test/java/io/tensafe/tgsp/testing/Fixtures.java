package io.tensafe.tgsp.testing;

import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** Deterministic test inputs: seeded randomness, keys, PEFT folders and pack options. */
public final class Fixtures {
  private Fixtures() {}

  /**
   * A deterministic SecureRandom for tests only: the same seed always gives the same keys, nonces
   * and signatures (SHA1PRNG is deterministic when seeded before first use).
   */
  public static SecureRandom deterministicRandomForTesting(long seed) {
    try {
      SecureRandom r = SecureRandom.getInstance("SHA1PRNG");
      r.setSeed(seed);
      return r;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static CreatorKeyPair creator(long seed) {
    return CreatorKeyPair.generate("acme-labs", deterministicRandomForTesting(seed));
  }

  public static FleetKeyPair fleet(long seed) {
    return FleetKeyPair.generate("fleet-eu", deterministicRandomForTesting(seed));
  }

  /**
   * Writes a PEFT LoRA folder with {@code layers} layers × {q_proj, v_proj}, hidden size {@code
   * hidden}, rank {@code rank}, Gaussian weights from {@code seed}.
   */
  public static Path peftFolder(Path dir, int layers, int hidden, int rank, DType dtype, long seed)
      throws IOException {
    return new SyntheticAdapter(
            layers, hidden, rank, 32, List.of("q_proj", "v_proj"), dtype, "Qwen/Qwen2.5-0.5B")
        .write(dir, seed);
  }

  /** Options as the CLI example in the issue gives them. */
  public static PackOptions options(OptionalInt targetRank, int chunkSize) {
    return new PackOptions(
        "0b5c6a9e-4f0e-4c1a-9d8e-2a7b3c4d5e6f",
        new Manifest.Adapter("banking-helper", "1.0.0"),
        Optional.empty(),
        Optional.empty(),
        new Manifest.Routing(List.of("bank", "mortgage", "interest rate"), "finance"),
        new Manifest.Price("USD", 1500, 2000),
        "proprietary",
        new Manifest.DpPolicy(
            BigDecimal.ONE, new BigDecimal("1.1"), new BigDecimal("0.00001"), BigDecimal.TEN, 30),
        Optional.empty(),
        targetRank,
        chunkSize,
        Instant.parse("2026-11-22T12:00:00Z"));
  }
}
