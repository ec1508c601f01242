package io.tensafe.tgsp.testing;

import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.safetensors.DType;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

/**
 * A small, fully deterministic package: one layer × {q_proj, v_proj}, hidden 16, rank 2, F32 (about
 * 1 KiB of payload in one chunk), creator seed 1, fleet seed 2, packing randomness seed 3.
 */
public record SmallPackage(Path file, CreatorKeyPair creator, FleetKeyPair fleet) {
  public static SmallPackage create(Path dir, String name) throws Exception {
    return create(dir, name, 1, 16, 4096, 3);
  }

  /** With {@code hidden} and {@code chunkSize} chosen by the caller (for multi-chunk payloads). */
  public static SmallPackage create(
      Path dir, String name, int layers, int hidden, int chunkSize, long packSeed)
      throws Exception {
    Path peft = Fixtures.peftFolder(dir.resolve(name + "-peft"), layers, hidden, 2, DType.F32, 7);
    CreatorKeyPair creator = Fixtures.creator(1);
    FleetKeyPair fleet = Fixtures.fleet(2);
    Path file = dir.resolve(name + ".tgsp");
    var options = Fixtures.options(OptionalInt.empty(), chunkSize);
    AdapterPacker.pack(
        peft,
        options,
        creator,
        List.of(fleet.publicKey()),
        Fixtures.deterministicRandomForTesting(packSeed),
        file,
        done -> {});
    return new SmallPackage(file, creator, fleet);
  }

  public TrustStore trust() {
    return TrustStore.of(List.of(creator.publicKey()));
  }
}
