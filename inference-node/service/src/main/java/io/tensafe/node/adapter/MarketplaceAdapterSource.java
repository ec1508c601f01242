package io.tensafe.node.adapter;

import io.tensafe.node.marketplace.MarketplaceClient;
import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.container.PackageReader;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.io.FileTrees;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterOpener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Adapter versions from the marketplace, as TGSP v2 packages: downloaded for this node's fleet,
 * verified against the creators' keys the marketplace holds now (fetched for every load, so a
 * revoked key stops working at the next load), decrypted with the fleet private key the operator
 * provides, and opened into {@code cache/<id>/<version>/}. The package's signed manifest must name
 * the requested id and version, and its DP policy becomes the adapter's input mechanism.
 */
public final class MarketplaceAdapterSource implements AdapterSource {
  private final MarketplaceClient marketplace;
  private final String node;
  private final FleetKeyPair fleet;
  private final Path cache;

  /**
   * @param node this node's registered name
   * @param fleet the fleet key pair (its private keys never leave this process)
   * @param cache a folder this source owns
   */
  public MarketplaceAdapterSource(
      MarketplaceClient marketplace, String node, FleetKeyPair fleet, Path cache) {
    this.marketplace = marketplace;
    this.node = node;
    this.fleet = fleet;
    this.cache = cache;
  }

  @Override
  public OpenedAdapter open(AdapterKey key)
      throws IOException, UnknownAdapterException, AdapterRejectedException {
    Path packages = Files.createDirectories(cache.resolve("packages"));
    Path file = packages.resolve(key.id() + "-" + key.version() + ".tgsp");
    Path folder = cache.resolve("adapters").resolve(key.id()).resolve(key.version());
    try {
      marketplace.download(key.id(), key.version(), node, file);
    } catch (io.tensafe.node.marketplace.PackageNotFoundException e) {
      throw new UnknownAdapterException(e.getMessage());
    }
    TrustStore trust = TrustStore.of(marketplace.creatorKeys());
    FileTrees.deleteRecursively(folder);
    PackageReader.VerifiedPackage verified;
    try {
      verified = AdapterOpener.open(file, trust, fleet, folder, bytes -> {});
    } catch (TgspException e) {
      throw new AdapterRejectedException(key + " failed verification: " + e.getMessage(), e);
    } finally {
      Files.deleteIfExists(file);
    }
    Manifest.Adapter named = verified.manifest().adapter();
    if (!named.id().equals(key.id()) || !named.version().equals(key.version())) {
      FileTrees.deleteRecursively(folder);
      throw new AdapterRejectedException(
          "the package served for " + key + " is signed as " + named.id() + "@" + named.version());
    }
    Manifest.DpPolicy dp = verified.manifest().dpPolicy();
    Optional<InputPrivacy> privacy =
        dp == null
            ? Optional.empty()
            : Optional.of(
                new InputPrivacy(dp.clipNorm().doubleValue(), dp.noiseMultiplier().doubleValue()));
    Optional<PrivateBounds> bounds =
        verified
            .manifest()
            .lora()
            .privateBounds()
            .map(b -> new PrivateBounds(b.aRowL2Log2(), b.bRowL1Log2(), b.spectralLog2()));
    return new OpenedAdapter(folder, privacy, bounds);
  }

  @Override
  public String describe() {
    return "marketplace " + marketplace.base();
  }
}
