package io.tensafe.tgsp.packaging;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackagePrefix;
import io.tensafe.tgsp.container.PackageWriter;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.Frames;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.manifest.ManifestCodec;
import io.tensafe.tgsp.peft.AdapterConfig;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.peft.RankReducer;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.SafetensorsHeader;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/** PEFT folder → TGSP v2 file: import, optional rank reduction, manifest, encrypt, sign. */
public final class AdapterPacker {
  private AdapterPacker() {}

  /** The outcome of a pack: what was signed, and the rank reduction if one ran. */
  public record PackResult(
      Manifest manifest, PackagePrefix prefix, Optional<RankReducer.Reduction> reduction) {}

  /**
   * Packs {@code peftFolder} into {@code output}.
   *
   * @param progress called with payload bytes encrypted so far (the payload size is in the result)
   */
  public static PackResult pack(
      Path peftFolder,
      PackOptions options,
      CreatorKeyPair creator,
      List<FleetPublicKey> recipients,
      SecureRandom random,
      Path output,
      LongConsumer progress)
      throws IOException, TgspException {
    PeftAdapter adapter = PeftAdapter.load(peftFolder);
    Path payload = adapter.weights();
    Path reduced = null;
    Optional<RankReducer.Reduction> reduction = Optional.empty();
    AdapterConfig config = adapter.config();
    SafetensorsHeader header = adapter.header();
    try {
      if (options.targetRank().isPresent()) {
        try (SafetensorsFile weights = SafetensorsFile.open(adapter.weights())) {
          reduction =
              Optional.of(RankReducer.reduce(adapter, weights, options.targetRank().getAsInt()));
        }
        Path dir = output.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        reduced = Files.createTempFile(dir, ".tgsp-reduced-", ".safetensors");
        try (OutputStream out = Files.newOutputStream(reduced)) {
          SafetensorsWriter.write(reduction.get().tensors(), Map.of(), out);
        }
        payload = reduced;
        config = reduction.get().config();
        try (SafetensorsFile check = SafetensorsFile.open(reduced)) {
          header = check.header();
        }
      }
      Manifest manifest = manifest(options, creator, config, adapter, header, payload, reduction);
      PackagePrefix prefix =
          PackageWriter.write(
              payload,
              manifest,
              creator,
              recipients,
              options.chunkSize(),
              random,
              output,
              progress);
      return new PackResult(manifest, prefix, reduction);
    } finally {
      if (reduced != null) {
        Files.deleteIfExists(reduced);
      }
    }
  }

  private static Manifest manifest(
      PackOptions o,
      CreatorKeyPair creator,
      AdapterConfig config,
      PeftAdapter adapter,
      SafetensorsHeader header,
      Path payload,
      Optional<RankReducer.Reduction> reduction)
      throws IOException, TgspException {
    String baseModel = o.baseModel().orElse(config.baseModel());
    if (baseModel.isEmpty()) {
      throw new JsonSchemaException(
          "manifest.base_model.id", "is required: adapter_config.json names no base model");
    }
    List<Manifest.TensorShape> tensors =
        header.tensors().stream()
            .sorted(java.util.Comparator.comparing(TensorInfo::name))
            .map(t -> new Manifest.TensorShape(t.name(), t.dtype(), t.shape()))
            .toList();
    Manifest.PrivateBounds bounds;
    try (SafetensorsFile weights = SafetensorsFile.open(payload)) {
      bounds = PrivateModeBounds.of(adapter, config, weights);
    }
    Optional<Manifest.RankReduction> rankReduction =
        reduction.map(
            r ->
                new Manifest.RankReduction(
                    adapter.config().rank(),
                    r.energies().stream()
                        .map(e -> new Manifest.SiteEnergy(e.site(), e.manifestValue()))
                        .toList()));
    Manifest manifest =
        new Manifest(
            o.packageId(),
            o.adapter(),
            new Manifest.Creator(creator.publicKey().creatorId(), creator.publicKey().keyId()),
            new Manifest.BaseModel(baseModel, o.baseModelConfigSha256()),
            new Manifest.Lora(
                config.rank(),
                config.alpha(),
                config.scaling(),
                adapter.targetModules(),
                tensors,
                rankReduction,
                Optional.of(bounds)),
            o.routing(),
            o.price(),
            o.licence(),
            o.dpPolicy(),
            o.trainingDpCertificate(),
            new Manifest.Payload(Files.size(payload), Frames.hex(sha256(payload))),
            o.createdAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
            o.measuredEffect());
    // Round-trip through the codec so that a pack never signs what a reader would refuse.
    ManifestCodec.decode(ManifestCodec.encode(manifest));
    return manifest;
  }

  private static byte[] sha256(Path file) throws IOException {
    MessageDigest digest = Frames.sha256();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
    }
    return digest.digest();
  }
}
