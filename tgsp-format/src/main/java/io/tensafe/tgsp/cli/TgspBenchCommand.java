package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.PayloadCipher;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.io.FileTrees;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterOpener;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./tensafe bench tgsp --size-mb N}: pack, verify and open throughput on one file. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Measure pack, verify and open throughput in MB/s.",
      "Generates an adapter of about --size-mb MB (F32, hidden 4096, rank 64) in a temporary",
      "folder, then times pack once, and verify and open (verify + decrypt + safetensors",
      "parse) three times each (the median is reported), on one thread, on the temporary disk."
    })
final class TgspBenchCommand implements Callable<Integer> {
  private static final int HIDDEN = 4096;
  private static final int RANK = 64;
  private static final int ROUNDS = 3;

  @Option(
      names = "--size-mb",
      defaultValue = "64",
      description = "payload size in MB (default: 64)")
  int sizeMb;

  @Option(names = "--json", description = "print one JSON object instead of a table")
  boolean json;

  @Override
  public Integer call() throws IOException, TgspException {
    if (sizeMb < 1 || sizeMb > 16384) {
      throw new IllegalArgumentException("--size-mb must be in 1..16384, was " + sizeMb);
    }
    Path dir = Files.createTempDirectory("tgsp-bench-");
    try {
      if (!json) {
        System.err.println("generating a " + sizeMb + " MB adapter in " + dir + " ...");
      }
      Path peft = writeAdapter(dir.resolve("peft"), sizeMb);
      SecureRandom random = new SecureRandom();
      CreatorKeyPair creator = CreatorKeyPair.generate("bench", random);
      FleetKeyPair fleet = FleetKeyPair.generate("bench", random);
      Path file = dir.resolve("bench.tgsp");
      long start = System.nanoTime();
      AdapterPacker.PackResult packed =
          AdapterPacker.pack(
              peft, options(), creator, List.of(fleet.publicKey()), random, file, done -> {});
      double packSeconds = (System.nanoTime() - start) / 1e9;
      TrustStore trust = TrustStore.of(List.of(creator.publicKey()));
      double[] verifyRuns = new double[ROUNDS];
      double[] openRuns = new double[ROUNDS];
      for (int round = 0; round < ROUNDS; round++) {
        start = System.nanoTime();
        PackageReader.verify(file, trust, done -> {});
        verifyRuns[round] = (System.nanoTime() - start) / 1e9;
        Path opened = dir.resolve("opened-" + round);
        start = System.nanoTime();
        AdapterOpener.open(file, trust, fleet, opened, done -> {});
        openRuns[round] = (System.nanoTime() - start) / 1e9;
        FileTrees.deleteRecursively(opened);
      }
      double verifySeconds = median(verifyRuns);
      double openSeconds = median(openRuns);
      double mb = packed.manifest().payload().plaintextBytes() / 1e6;
      if (json) {
        System.out.printf(
            Locale.ROOT,
            "{\"size_mb\":%.1f,\"pack_mb_s\":%.1f,\"verify_mb_s\":%.1f,\"open_mb_s\":%.1f,\"threads\":1}%n",
            mb,
            mb / packSeconds,
            mb / verifySeconds,
            mb / openSeconds);
      } else {
        System.out.printf(
            Locale.ROOT,
            "%-10s %12s %12s %12s%n",
            "size MB",
            "pack MB/s",
            "verify MB/s",
            "open MB/s");
        System.out.printf(
            Locale.ROOT,
            "%-10.1f %12.1f %12.1f %12.1f%n",
            mb,
            mb / packSeconds,
            mb / verifySeconds,
            mb / openSeconds);
      }
      return 0;
    } finally {
      FileTrees.deleteRecursively(dir);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static Path writeAdapter(Path dir, int sizeMb) throws IOException {
    long perLayer = 2L * HIDDEN * RANK * 4;
    int layers = (int) Math.max(1, sizeMb * 1_000_000L / perLayer);
    return new SyntheticAdapter(
            layers, HIDDEN, RANK, 16, List.of("q_proj"), DType.F32, "Qwen/Qwen2.5-1.5B")
        .write(dir, 1);
  }

  private static PackOptions options() {
    return new PackOptions(
        UUID.randomUUID().toString(),
        new Manifest.Adapter("bench-adapter", "1.0.0"),
        Optional.empty(),
        Optional.empty(),
        new Manifest.Routing(List.of("bench"), "bench"),
        new Manifest.Price("USD", 1000, 1000),
        "proprietary",
        new Manifest.DpPolicy(
            BigDecimal.ONE, new BigDecimal("1.1"), new BigDecimal("0.00001"), BigDecimal.TEN, 30),
        Optional.empty(),
        OptionalInt.empty(),
        PayloadCipher.DEFAULT_CHUNK_BYTES,
        Instant.now());
  }
}
