package io.tensafe.tgsp.packaging;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.peft.LoraSite;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.testing.Fixtures;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pack signs the bounds private mode's scales and noise come from (ADR 0025): the least powers of
 * two above every row's L1 norm of A and scaled B, and above every site's ‖s·B‖_F·‖A‖_F.
 */
class PrivateBoundsSignedTest {
  @TempDir Path dir;

  @Test
  void pack_signsTheLeastPowersOfTwoAboveTheWeights() throws Exception {
    Path peft = Fixtures.peftFolder(dir.resolve("peft"), 2, 64, 8, DType.F32, 11);
    CreatorKeyPair creator = Fixtures.creator(1);
    FleetKeyPair fleet = Fixtures.fleet(2);
    Manifest m =
        AdapterPacker.pack(
                peft,
                Fixtures.options(OptionalInt.empty(), 4096),
                creator,
                List.of(fleet.publicKey()),
                Fixtures.deterministicRandomForTesting(3),
                dir.resolve("a.tgsp"),
                done -> {})
            .manifest();
    Manifest.PrivateBounds bounds = m.lora().privateBounds().orElseThrow();
    PeftAdapter adapter = PeftAdapter.load(peft);
    double s =
        adapter
            .config()
            .scaling()
            .factor(adapter.config().alpha().doubleValue(), adapter.config().rank());
    double aRowL2 = 0;
    double bRowL1 = 0;
    double spectral = 0;
    try (SafetensorsFile weights = SafetensorsFile.open(peft.resolve(PeftAdapter.WEIGHTS_FILE))) {
      for (LoraSite site : adapter.sites()) {
        double[] a = weights.read(site.a()).values();
        double[] b = weights.read(site.b()).values();
        int in = (int) site.inFeatures();
        int r = a.length / in;
        double fa = 0;
        double fb = 0;
        for (int i = 0; i < r; i++) {
          double sum = 0;
          for (int j = 0; j < in; j++) {
            sum += a[i * in + j] * a[i * in + j];
          }
          fa += sum;
          aRowL2 = Math.max(aRowL2, Math.sqrt(sum));
        }
        for (int o = 0; o < b.length / r; o++) {
          double sum = 0;
          for (int j = 0; j < r; j++) {
            sum += Math.abs(s * b[o * r + j]);
            fb += s * b[o * r + j] * s * b[o * r + j];
          }
          bRowL1 = Math.max(bRowL1, sum);
        }
        spectral = Math.max(spectral, Math.sqrt(fa) * Math.sqrt(fb));
      }
    }
    assertTrue(aRowL2 > 0 && bRowL1 > 0 && spectral > 0, "the fixture has weights");
    double aBound = Math.scalb(1.0, bounds.aRowL2Log2());
    double bBound = Math.scalb(1.0, bounds.bRowL1Log2());
    double spectralBound = Math.scalb(1.0, bounds.spectralLog2());
    assertTrue(aBound >= aRowL2 && aBound / 2 < aRowL2, aBound + " for " + aRowL2);
    assertTrue(bBound >= bRowL1 && bBound / 2 < bRowL1, bBound + " for " + bRowL1);
    assertTrue(
        spectralBound >= spectral && spectralBound / 2 < spectral,
        spectralBound + " for " + spectral);
  }
}
