package io.tensafe.marketplace.adapter;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.narayana.jta.QuarkusTransactionException;
import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.creator.Creator;
import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.fleet.FleetService;
import io.tensafe.marketplace.fleet.NodeFleet;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.storage.PackageStore;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.crypto.RecipientEntry;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.manifest.ManifestCodec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Accepts a creator's {@code .tgsp}: stream to an incoming file, verify it with tgsp-format against
 * this creator's unrevoked keys only, check it is encrypted to a known fleet and that its manifest
 * is acceptable, record it, and only then make the bytes visible at their content address. Any
 * failure leaves no row and no file.
 */
@ApplicationScoped
public class UploadService {
  @Inject CatalogConfig catalog;
  @Inject AdapterRepository adapters;
  @Inject AdapterVersionRepository versions;
  @Inject AdapterPriceRepository prices;
  @Inject DpPolicyRepository policies;
  @Inject CurrentUser current;
  @Inject CreatorService creators;
  @Inject FleetService fleets;
  @Inject io.tensafe.marketplace.fleet.NodeService nodes;
  @Inject PackageStore store;
  @Inject AuditLog audit;

  public VersionView upload(InputStream body) {
    Creator creator =
        creators
            .currentCreator()
            .orElseThrow(
                () ->
                    new ApiProblem(
                        ProblemKind.PACKAGE_UNKNOWN_SIGNER,
                        "register a signing key (POST /api/creator/keys) before uploading"));
    if (creator.suspendedAt != null) {
      throw new ApiProblem(ProblemKind.FORBIDDEN, "this creator is suspended");
    }
    AppUser user = current.user();
    PackageStore.Incoming incoming = store.receive(body);
    try {
      PackageReader.VerifiedPackage verified;
      try {
        verified = PackageReader.verify(incoming.file(), creators.trustStore(creator), done -> {});
      } catch (TgspException e) {
        throw PackageRejections.of(e);
      }
      NodeFleet fleet =
          verified.recipients().stream()
              .map(RecipientEntry::recipientId)
              .map(fleets::byKeyId)
              .flatMap(Optional::stream)
              .findFirst()
              .orElseThrow(
                  () ->
                      new ApiProblem(
                          ProblemKind.PACKAGE_WRONG_FLEET,
                          "the package's recipients are not fleets this marketplace serves; "
                              + "encrypt to a key from GET /api/fleets/keys"));
      checkManifest(verified.manifest());
      checkShapes(verified.manifest(), fleet);
      VersionView view;
      try {
        view =
            QuarkusTransaction.requiringNew()
                .call(() -> record(creator, user, verified, fleet, incoming));
      } catch (PersistenceException | QuarkusTransactionException e) {
        // A unique constraint (adapter id, package id, adapter + version) lost a race with a
        // concurrent upload of the same package or version; that upload won, this one is a
        // duplicate.
        throw versionNotNewer(verified.manifest());
      }
      store.commit(incoming);
      return view;
    } catch (IOException e) {
      store.discard(incoming);
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      store.discard(incoming);
      throw e;
    }
  }

  private void checkManifest(Manifest m) {
    if (m.price().promptMicrosPer1kTokens() <= 0 || m.price().completionMicrosPer1kTokens() <= 0) {
      throw PackageRejections.manifest("prices must be positive");
    }
    if (!catalog.currencies().contains(m.price().currency())) {
      throw PackageRejections.manifest(
          "currency "
              + m.price().currency()
              + " is not supported; supported: "
              + catalog.currencies());
    }
    List<String> stop =
        m.routing().keywords().stream()
            .filter(io.tensafe.tgsp.routing.StopWords::isStopKeyword)
            .toList();
    if (!stop.isEmpty()) {
      throw PackageRejections.manifest(
          "keywords "
              + stop
              + " are too common to route by (stop-words, ADR 0009); list words that say what the"
              + " adapter is about");
    }
    if (!catalog.baseModels().contains(m.baseModel().id())) {
      throw PackageRejections.manifest(
          "base model " + m.baseModel().id() + " is not served; served: " + catalog.baseModels());
    }
    Manifest.DpPolicy dp = m.dpPolicy();
    // No noise (z = 0) is the creator's choice, shown with the signed figures (ADR 0035); a policy
    // with noise must not be below z = 0.3, where one release alone spends ρ > 5.5.
    boolean noNoise = dp.noiseMultiplier().signum() == 0;
    if ((!noNoise && dp.noiseMultiplier().compareTo(new BigDecimal("0.3")) < 0)
        || dp.epsilonBudgetPerPeriod().compareTo(BigDecimal.valueOf(100)) > 0) {
      throw PackageRejections.manifest(
          "DP policy is not sane: the noise multiplier must be 0 (no noise) or at least 0.3, and"
              + " the budget at most ε = 100 per period");
    }
  }

  /**
   * Refuses an adapter whose tensors do not fit its base model, as a node of the package's fleet
   * serving that model reported its shape; when none has, the upload is accepted unchecked (the
   * node checks again when it loads the adapter, and the gateway answers its refusal with 422).
   */
  private void checkShapes(Manifest m, NodeFleet fleet) {
    nodes
        .reportedShape(m.baseModel().id(), fleet.id)
        .ifPresent(
            shape -> {
              java.util.Map<String, java.util.List<Long>> shapes = new java.util.TreeMap<>();
              m.lora().tensors().forEach(t -> shapes.put(t.name(), t.shape()));
              java.util.List<String> problems = shape.incompatibilities(shapes);
              if (!problems.isEmpty()) {
                throw new ApiProblem(
                    ProblemKind.PACKAGE_INCOMPATIBLE,
                    "the adapter cannot run on "
                        + m.baseModel().id()
                        + " as its nodes serve it: "
                        + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
                        + (problems.size() > 5 ? "; and " + (problems.size() - 5) + " more" : ""));
              }
            });
  }

  private VersionView record(
      Creator creator,
      AppUser user,
      PackageReader.VerifiedPackage verified,
      NodeFleet fleet,
      PackageStore.Incoming incoming) {
    Manifest m = verified.manifest();
    Adapter adapter =
        adapters.byRef(m.adapter().id()).orElseGet(() -> newAdapter(creator, m.adapter().id()));
    if (!adapter.creatorId.equals(creator.id)) {
      throw ProblemTypes.conflict(
          "adapter id '" + m.adapter().id() + "' belongs to another creator");
    }
    int[] v = parseVersion(m.adapter().version());
    if (versions.hasAtLeast(adapter.id, v[0], v[1], v[2])) {
      throw versionNotNewer(m);
    }
    DpPolicy dp = new DpPolicy();
    dp.id = UUID.randomUUID();
    dp.clipNorm = m.dpPolicy().clipNorm();
    dp.noiseMultiplier = m.dpPolicy().noiseMultiplier();
    dp.delta = m.dpPolicy().delta();
    dp.epsilonBudgetPerPeriod = m.dpPolicy().epsilonBudgetPerPeriod();
    dp.periodDays = m.dpPolicy().periodDays();
    policies.persist(dp);
    AdapterVersion row = new AdapterVersion();
    row.id = UUID.randomUUID();
    row.adapterId = adapter.id;
    row.version = m.adapter().version();
    row.versionMajor = v[0];
    row.versionMinor = v[1];
    row.versionPatch = v[2];
    row.packageId = UUID.fromString(m.packageId());
    row.signingKeyId = verified.signer().keyId();
    row.fleetId = fleet.id;
    row.baseModel = m.baseModel().id();
    row.rank = m.lora().rank();
    row.alpha = m.lora().alpha();
    row.scaling = m.lora().scaling().wireName();
    row.targetModules = m.lora().targetModules().toArray(String[]::new);
    row.keywords = m.routing().keywords().toArray(String[]::new);
    row.domain = m.routing().domain();
    row.licence = m.licence();
    row.dpPolicyId = dp.id;
    row.manifest = new String(ManifestCodec.encode(m), StandardCharsets.UTF_8);
    row.packageSha256 = incoming.sha256();
    row.packageBytes = incoming.size();
    row.state = "draft";
    row.uploadedAt = OffsetDateTime.now();
    row.uploadedBy = user.id;
    versions.persist(row);
    AdapterPrice price = new AdapterPrice();
    price.adapterVersionId = row.id;
    price.currency = m.price().currency();
    price.promptMicrosPer1kTokens = m.price().promptMicrosPer1kTokens();
    price.completionMicrosPer1kTokens = m.price().completionMicrosPer1kTokens();
    price.effectiveFrom = row.uploadedAt;
    price.createdAt = row.uploadedAt;
    price.createdBy = user.id;
    prices.persist(price);
    audit.record(
        user,
        "adapter-version.upload",
        "adapter-version",
        row.id.toString(),
        "{\"adapter\":\"" + adapter.adapterRef + "\",\"version\":\"" + row.version + "\"}");
    versions.flush();
    return new VersionView(
        adapter.adapterRef,
        row.version,
        row.state,
        row.baseModel,
        row.rank,
        row.domain,
        price.currency,
        price.promptMicrosPer1kTokens,
        price.completionMicrosPer1kTokens,
        row.packageSha256,
        row.packageBytes,
        row.uploadedAt,
        null,
        null,
        null,
        null,
        SignedFigures.dpPolicy(row.manifest),
        SignedFigures.measuredEffect(row.manifest),
        VersionView.NOT_OFFERED);
  }

  private Adapter newAdapter(Creator creator, String ref) {
    Adapter a = new Adapter();
    a.id = UUID.randomUUID();
    a.creatorId = creator.id;
    a.adapterRef = ref;
    a.createdAt = OffsetDateTime.now();
    adapters.persist(a);
    return a;
  }

  private static ApiProblem versionNotNewer(Manifest m) {
    return new ApiProblem(
        ProblemKind.VERSION_NOT_NEWER,
        m.adapter().id()
            + "@"
            + m.adapter().version()
            + " is not newer than the latest uploaded version (or this package was already uploaded)");
  }

  private static int[] parseVersion(String version) {
    String[] parts = version.split("\\.");
    return new int[] {
      Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])
    };
  }
}
