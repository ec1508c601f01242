package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.sql.Rows;
import io.tensafe.tgsp.peft.LoraInputs;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The published versions an API key may use: adapters in its scope (all when unscoped), neither the
 * adapter, its creator nor the version suspended. An adapter named without a version resolves to
 * its newest published version whose price-rise notice as the newest has ended (ADR 0009). Versions
 * and prices come from the catalogue's copy in memory ({@link ServedCatalogue}), which the
 * admission's database call checks is current; the other lookups are each their own short
 * transaction, so the connection is released at once rather than held for the rest of a streamed
 * request.
 */
@ApplicationScoped
public class ServedVersions {
  @Inject EntityManager em;
  @Inject io.tensafe.marketplace.fleet.NodeService nodes;
  @Inject ServedCatalogue catalogue;

  private final Map<UUID, Integer> releasesPerToken = new ConcurrentHashMap<>();
  private final Map<UUID, Set<String>> adaptedModules = new ConcurrentHashMap<>();

  /**
   * The newest version ({@link ServedCatalogue.Entry#newestAt}) of every adapter the key may use,
   * oldest adapter first: what {@code auto} chooses among.
   */
  @Transactional
  public List<ServedVersion> newestForKey(ApiKeyPrincipal key) {
    return newestForKey(key, new ServedCatalogue.Snapshot(catalogue.current(), Instant.now()));
  }

  /**
   * As {@link #newestForKey(ApiKeyPrincipal)}, from the snapshot {@code at} (the one {@link #find}
   * resolves from), with the prices in force at its time.
   */
  @Transactional
  public List<ServedVersion> newestForKey(ApiKeyPrincipal key, ServedCatalogue.Snapshot at) {
    Instant now = at.at();
    List<ServedVersion> all = new ArrayList<>();
    for (List<ServedCatalogue.Entry> versions : at.copy().byAdapter().values()) {
      ServedCatalogue.Entry.newestAt(versions, now)
          .filter(newest -> allowed(key, newest.adapterUuid()))
          .ifPresent(newest -> all.add(of(newest, newest.priceAt(now).orElseThrow(), true)));
    }
    return all;
  }

  /**
   * {@code adapterId}'s version {@code version} (when null, its newest: {@link
   * ServedCatalogue.Entry#newestAt}, which waits out a dearer version's notice), if the key may use
   * it, from the snapshot {@code at}, with the price in force at its time.
   */
  @Transactional
  public Optional<ServedVersion> find(
      ApiKeyPrincipal key, String adapterId, String version, ServedCatalogue.Snapshot at) {
    Instant now = at.at();
    List<ServedCatalogue.Entry> versions = at.copy().byAdapter().getOrDefault(adapterId, List.of());
    Optional<ServedCatalogue.Entry> found =
        version == null
            ? ServedCatalogue.Entry.newestAt(versions, now)
            : versions.stream()
                .filter(v -> v.version().equals(version) && v.priceAt(now).isPresent())
                .findFirst();
    return found
        .filter(v -> allowed(key, v.adapterUuid()))
        .map(v -> of(v, v.priceAt(now).orElseThrow(), version == null));
  }

  private static boolean allowed(ApiKeyPrincipal key, UUID adapter) {
    return key.adapterIds().isEmpty() || key.adapterIds().contains(adapter);
  }

  private ServedVersion of(ServedCatalogue.Entry v, ServedCatalogue.Price p, boolean newest) {
    return new ServedVersion(
        v.adapterRef(),
        v.adapterUuid(),
        v.version(),
        v.fleetId(),
        v.baseModel(),
        v.keywords(),
        releasesPerToken(v.versionId()),
        p.currency(),
        p.promptMicros(),
        p.completionMicros(),
        v.versionId(),
        p.id(),
        newest);
  }

  /** The releases per token of {@code adapterRef@version} (which must exist). */
  public int releasesPerToken(String adapterRef, String version) {
    return releasesPerToken(versionId(adapterRef, version));
  }

  private UUID versionId(String adapterRef, String version) {
    return (UUID)
        em.createNativeQuery(
                "SELECT v.id FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id"
                    + " WHERE a.adapter_ref = :ref AND v.version = :version")
            .setParameter("ref", adapterRef)
            .setParameter("version", version)
            .getSingleResult();
  }

  /** The tensor names of version {@code versionId}'s signed manifest. */
  private List<String> tensorNames(UUID versionId) {
    List<?> names =
        em.createNativeQuery(
                "SELECT t->>'name' FROM adapter_version v,"
                    + " jsonb_array_elements(v.manifest->'lora'->'tensors') t WHERE v.id = :v")
            .setParameter("v", versionId)
            .getResultList();
    return names.stream().map(String::valueOf).toList();
  }

  /**
   * The SHA-256 (hex) of the base model's {@code config.json} that the version's signed manifest
   * names, if it names one: a private-mode client checks its own model folder against it.
   */
  public Optional<String> baseModelConfigSha256(String adapterRef, String version) {
    List<?> rows =
        em.createNativeQuery(
                "SELECT v.manifest->'base_model'->>'config_sha256' FROM adapter_version v"
                    + " JOIN adapter a ON a.id = v.adapter_id"
                    + " WHERE a.adapter_ref = :ref AND v.version = :version")
            .setParameter("ref", adapterRef)
            .setParameter("version", version)
            .getResultList();
    return rows.stream().filter(java.util.Objects::nonNull).map(String::valueOf).findFirst();
  }

  /**
   * What a private session that starts now pays per 1k tokens processed, prompt and completion
   * alike, in the version's currency: the private price in force if the creator set one, else the
   * larger hosted one (ADR 0024).
   */
  public long privatePriceNow(String adapterRef, String version) {
    return ((Number)
            em.createNativeQuery(
                    """
                    SELECT coalesce(p.private_micros_per_1k_tokens,
                                    greatest(p.prompt_micros_per_1k_tokens,
                                             p.completion_micros_per_1k_tokens))
                    FROM adapter_price p JOIN adapter_version v ON v.id = p.adapter_version_id
                    JOIN adapter a ON a.id = v.adapter_id
                    WHERE a.adapter_ref = :ref AND v.version = :version
                      AND p.effective_from <= now()
                    ORDER BY p.effective_from DESC LIMIT 1
                    """)
                .setParameter("ref", adapterRef)
                .setParameter("version", version)
                .getSingleResult())
        .longValue();
  }

  /**
   * The adapted sites of {@code adapterRef@version} (which must exist) that a private session
   * noises once per token each (ADR 0024): one per {@code lora_A} tensor of its manifest, at least
   * 1. A node's plan must name the same number when it opens a session, and list those sites
   * ({@link #adaptedModules}).
   */
  public int noisedSitesPerToken(String adapterRef, String version) {
    return noisedSitesPerToken(versionId(adapterRef, version));
  }

  /** As {@link #noisedSitesPerToken(String, String)}, for version row {@code id}. */
  @Transactional
  public int noisedSitesPerToken(UUID id) {
    return Math.max(1, adaptedModules(id).size());
  }

  /**
   * The module paths of version {@code id}'s adapted sites, as a node's private-session plan names
   * them: one per {@code lora_A} tensor of its signed manifest, its name without {@code
   * .lora_A.weight} and without PEFT's {@code base_model.model.} (so {@code
   * base_model.model.model.layers.1.mlp.experts.3.gate_proj.lora_A.weight} is {@code
   * model.layers.1.mlp.experts.3.gate_proj}). A node's plan must list exactly these, each once (ADR
   * 0024): the budget and the bill are for them. Cached, since a version's manifest never changes.
   */
  @Transactional
  public Set<String> adaptedModules(UUID id) {
    Set<String> cached = adaptedModules.get(id);
    if (cached != null) {
      return cached;
    }
    Set<String> modules =
        Set.copyOf(
            tensorNames(id).stream()
                .filter(io.tensafe.tgsp.peft.LoraTensorNames::isLoraA)
                .map(ServedVersions::modulePath)
                .toList());
    adaptedModules.put(id, modules);
    return modules;
  }

  /**
   * The module path of {@code lora_A} tensor {@code name} ({@link #adaptedModules}), by the rule
   * the node keys its sites by ({@code LoraTensorNames.modulePath}); a name that is no decoder site
   * (which no node serves) stands for itself, so it can never match a plan.
   */
  static String modulePath(String name) {
    String site = io.tensafe.tgsp.peft.LoraTensorNames.siteOfLoraA(name);
    return io.tensafe.tgsp.peft.LoraTensorNames.modulePath(site).orElse(site);
  }

  /**
   * The version's releases per token, from its manifest's tensor names and, for adapters on a
   * mixture-of-experts model's experts, the experts per token that a node of the version's fleet
   * reported for its base model (every adapted expert counts while none has: an upper bound). At
   * least 1, so a request always reserves some budget. Cached once it no longer depends on a shape
   * still to be reported, since a version's manifest never changes.
   */
  private int releasesPerToken(UUID versionId) {
    Integer cached = releasesPerToken.get(versionId);
    if (cached != null) {
      return cached;
    }
    List<String> tensors = tensorNames(versionId);
    boolean onExperts = LoraInputs.readsExperts(tensors);
    java.util.OptionalInt perToken =
        onExperts ? expertsPerToken(versionId) : java.util.OptionalInt.empty();
    int count =
        Math.max(
            1,
            perToken.isPresent()
                ? LoraInputs.releasesPerToken(tensors, perToken.getAsInt())
                : LoraInputs.releasesPerToken(tensors));
    if (!onExperts || perToken.isPresent()) {
      releasesPerToken.put(versionId, count);
    }
    return count;
  }

  /** A version's base model and fleet, as {@link #expertsPerToken} selects them. */
  private record ModelAndFleet(String baseModel, UUID fleetId) {}

  private java.util.OptionalInt expertsPerToken(UUID versionId) {
    ModelAndFleet row =
        Rows.single(
            em.createNativeQuery(
                    "SELECT v.base_model, v.fleet_id FROM adapter_version v WHERE v.id = :v")
                .setParameter("v", versionId),
            ModelAndFleet.class);
    return nodes
        .reportedShape(row.baseModel(), row.fleetId())
        .flatMap(io.tensafe.tgsp.peft.BaseModelShape::moe)
        .map(e -> java.util.OptionalInt.of(e.expertsPerToken()))
        .orElse(java.util.OptionalInt.empty());
  }
}
