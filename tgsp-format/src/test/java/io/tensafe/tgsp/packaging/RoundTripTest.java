package io.tensafe.tgsp.packaging;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.TensorInfo;
import io.tensafe.tgsp.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RoundTripTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(DType.class)
  void packThenOpen_anyDtype_givesIdenticalTensors(DType dtype) throws Exception {
    Path peft = Fixtures.peftFolder(dir.resolve("peft"), 2, 64, 8, dtype, 7);
    CreatorKeyPair creator = Fixtures.creator(1);
    FleetKeyPair fleet = Fixtures.fleet(2);
    Path file = dir.resolve("a.tgsp");
    AdapterPacker.pack(
        peft,
        Fixtures.options(OptionalInt.empty(), 4096),
        creator,
        List.of(fleet.publicKey()),
        Fixtures.deterministicRandomForTesting(3),
        file,
        done -> {});
    Path out = dir.resolve("opened");
    AdapterOpener.open(file, TrustStore.of(List.of(creator.publicKey())), fleet, out, done -> {});

    assertArrayEquals(
        Files.readAllBytes(peft.resolve(PeftAdapter.WEIGHTS_FILE)),
        Files.readAllBytes(out.resolve(PeftAdapter.WEIGHTS_FILE)));
    PeftAdapter original = PeftAdapter.load(peft);
    PeftAdapter reopened = PeftAdapter.load(out);
    assertEquals(original.config(), reopened.config());
    assertEquals(original.targetModules(), reopened.targetModules());
    try (SafetensorsFile a = SafetensorsFile.open(peft.resolve(PeftAdapter.WEIGHTS_FILE));
        SafetensorsFile b = SafetensorsFile.open(out.resolve(PeftAdapter.WEIGHTS_FILE))) {
      for (TensorInfo t : a.header().tensors()) {
        assertArrayEquals(
            a.read(t).data(), b.read(b.header().tensor(t.name()).orElseThrow()).data());
      }
    }
    try (var files = Files.list(dir)) {
      assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".tgsp")));
    }
  }
}
