package io.tensafe.tgsp.packaging;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.container.ShapeMismatchException;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.io.FileTrees;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.peft.AdapterConfig;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * TGSP v2 file → PEFT folder, for a node fleet. Verifies, decrypts (streaming) into a hidden
 * temporary folder next to the destination, checks the safetensors payload against the signed
 * manifest, writes {@code adapter_config.json}, and only then moves the folder into place
 * atomically. On any failure the destination does not appear and the temporary folder is removed.
 */
public final class AdapterOpener {
  private AdapterOpener() {}

  /** Opens {@code file} into {@code outFolder}, which must not exist yet. */
  public static PackageReader.VerifiedPackage open(
      Path file, TrustStore trust, FleetKeyPair fleet, Path outFolder, LongConsumer progress)
      throws IOException, TgspException {
    if (Files.exists(outFolder)) {
      throw new FileAlreadyExistsException(outFolder.toString(), null, "refusing to overwrite");
    }
    Path parent = outFolder.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path temp = Files.createTempDirectory(parent, ".tgsp-open-");
    try {
      Path weights = temp.resolve(PeftAdapter.WEIGHTS_FILE);
      PackageReader.VerifiedPackage verified;
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(weights), 1 << 16)) {
        verified = PackageReader.decrypt(file, trust, fleet, out, progress);
      }
      Manifest.Lora lora = verified.manifest().lora();
      AdapterConfig config =
          new AdapterConfig(
              lora.rank(), lora.alpha(), lora.scaling(), verified.manifest().baseModel().id());
      try (SafetensorsFile payload = SafetensorsFile.open(weights)) {
        checkShapes(lora.tensors(), payload.header().tensors());
        PeftAdapter.of(config, weights, payload.header());
      }
      Files.write(
          temp.resolve(PeftAdapter.CONFIG_FILE),
          CanonicalJson.encodeWithDecimals(config.toPeftJson(lora.targetModules())));
      Files.move(temp, outFolder, StandardCopyOption.ATOMIC_MOVE);
      return verified;
    } finally {
      FileTrees.deleteRecursively(temp);
    }
  }

  static void checkShapes(List<Manifest.TensorShape> declared, List<TensorInfo> actual)
      throws ShapeMismatchException {
    List<Manifest.TensorShape> found =
        actual.stream()
            .sorted(Comparator.comparing(TensorInfo::name))
            .map(t -> new Manifest.TensorShape(t.name(), t.dtype(), t.shape()))
            .toList();
    if (!found.equals(declared)) {
      for (int i = 0; i < Math.max(found.size(), declared.size()); i++) {
        Manifest.TensorShape d = i < declared.size() ? declared.get(i) : null;
        Manifest.TensorShape f = i < found.size() ? found.get(i) : null;
        if (d == null || !d.equals(f)) {
          throw new ShapeMismatchException(
              "payload tensor " + (i + 1) + " is " + f + " but the manifest declares " + d);
        }
      }
    }
  }
}
