package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tgsp keygen creator|fleet --out DIR}. */
@Command(
    name = "keygen",
    mixinStandardHelpOptions = true,
    description = "Generate a creator signing key or a fleet encryption key.")
final class KeygenCommand {

  @Command(
      name = "creator",
      mixinStandardHelpOptions = true,
      description = {
        "Write DIR/creator.key (private, mode 600) and DIR/creator.pub.",
        "The key is hybrid: Ed25519 + ML-DSA-65; packages need both signatures."
      })
  int creator(
      @Option(names = "--out", required = true, description = "folder for the key files") Path out,
      @Option(
              names = "--creator-id",
              required = true,
              description = {
                "your creator id on the marketplace: shown on its upload page and by",
                "GET /api/creator/profile; your first registered key fixes it"
              })
          String creatorId)
      throws IOException {
    CreatorKeyPair pair = CreatorKeyPair.generate(creatorId, new SecureRandom());
    KeyFiles.writeCreatorPrivate(pair, out.resolve("creator.key"));
    KeyFiles.writeCreatorPublic(pair.publicKey(), out.resolve("creator.pub"));
    System.out.println(
        "creator key " + pair.publicKey().keyId() + " for " + creatorId + " written to " + out);
    return 0;
  }

  @Command(
      name = "fleet",
      mixinStandardHelpOptions = true,
      description = {
        "Write DIR/fleet.key (private, mode 600) and DIR/fleet.pub.",
        "The key is hybrid: X25519 + ML-KEM-768. Packages are encrypted to fleet.pub."
      })
  int fleet(
      @Option(names = "--out", required = true, description = "folder for the key files") Path out,
      @Option(
              names = "--fleet-id",
              defaultValue = "fleet",
              description = "the node fleet's id (default: ${DEFAULT-VALUE})")
          String fleetId)
      throws IOException {
    FleetKeyPair pair = FleetKeyPair.generate(fleetId, new SecureRandom());
    KeyFiles.writeFleetPrivate(pair, out.resolve("fleet.key"));
    KeyFiles.writeFleetPublic(pair.publicKey(), out.resolve("fleet.pub"));
    System.out.println(
        "fleet key " + pair.publicKey().keyId() + " for " + fleetId + " written to " + out);
    return 0;
  }
}
