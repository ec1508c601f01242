package io.tensafe.tgsp.packaging;

import io.tensafe.tgsp.manifest.Manifest;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a creator states when packing, besides the PEFT folder and keys. The packer derives rank,
 * alpha, scaling, targets, tensors and digests from the adapter itself.
 *
 * @param packageId a lowercase UUID; new per package
 * @param baseModel overrides the config's {@code base_model_name_or_path} when present
 * @param targetRank when present, {@code pack --rank K}: reduce every site to rank K
 * @param chunkSize plaintext bytes per AES-GCM chunk
 * @param measuredEffect the effect retained under {@code dpPolicy}, measured on the weights with
 *     the base model before packing (ADR 0035), signed into the manifest when present
 */
public record PackOptions(
    String packageId,
    Manifest.Adapter adapter,
    Optional<String> baseModel,
    Optional<String> baseModelConfigSha256,
    Manifest.Routing routing,
    Manifest.Price price,
    String licence,
    Manifest.DpPolicy dpPolicy,
    Optional<Manifest.TrainingDpCertificate> trainingDpCertificate,
    OptionalInt targetRank,
    int chunkSize,
    Instant createdAt,
    Optional<Manifest.MeasuredEffect> measuredEffect) {

  /** Options without measured figures. */
  public PackOptions(
      String packageId,
      Manifest.Adapter adapter,
      Optional<String> baseModel,
      Optional<String> baseModelConfigSha256,
      Manifest.Routing routing,
      Manifest.Price price,
      String licence,
      Manifest.DpPolicy dpPolicy,
      Optional<Manifest.TrainingDpCertificate> trainingDpCertificate,
      OptionalInt targetRank,
      int chunkSize,
      Instant createdAt) {
    this(
        packageId,
        adapter,
        baseModel,
        baseModelConfigSha256,
        routing,
        price,
        licence,
        dpPolicy,
        trainingDpCertificate,
        targetRank,
        chunkSize,
        createdAt,
        Optional.empty());
  }

  /** These options with {@code effect} to sign. */
  public PackOptions withMeasuredEffect(Manifest.MeasuredEffect effect) {
    return new PackOptions(
        packageId,
        adapter,
        baseModel,
        baseModelConfigSha256,
        routing,
        price,
        licence,
        dpPolicy,
        trainingDpCertificate,
        targetRank,
        chunkSize,
        createdAt,
        Optional.of(effect));
  }
}
