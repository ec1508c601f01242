package io.tensafe.client.marketplace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.tgsp.container.RecipientsCodec;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet keys this client wraps its frame keys to (ADR 0037), pinned so that the marketplace,
 * which lists them, cannot swap in or add a key of its own. Keys given on the command line ({@code
 * --fleet-key}) are the only ones used when any is given. Otherwise the fleets listed at the first
 * contact (an empty pin file) are trusted and written to the pin file ({@code fleet id → key id}),
 * and later only pinned fleets are used: a fleet listed later is ignored unless the user opts in
 * ({@code --trust-new-fleets}), and a listing that names another key for a pinned fleet is refused,
 * naming the fleet and both key ids. The first-contact risk: a marketplace that substitutes or adds
 * a key at that first contact goes unnoticed until the user checks the key ids with the fleets'
 * operators; {@code --fleet-key} removes it. Thread-safe.
 */
public final class FleetPins {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final boolean trustNew;
  private final Map<String, FleetPublicKey> given = new LinkedHashMap<>();
  private final Map<String, String> pinned = new LinkedHashMap<>();

  private FleetPins(Path file, boolean trustNew) {
    this.file = file;
    this.trustNew = trustNew;
  }

  /**
   * The pins in {@code file} (absent: none yet) and the keys {@code given} out of band.
   *
   * @throws IOException if the file exists and is not a JSON object of strings
   */
  public static FleetPins load(Path file, List<FleetPublicKey> given) throws IOException {
    return load(file, given, false);
  }

  /**
   * As {@link #load(Path, List)}; with {@code trustNew}, fleets listed after the first contact are
   * pinned on sight too (the user's explicit choice, {@code --trust-new-fleets}).
   */
  public static FleetPins load(Path file, List<FleetPublicKey> given, boolean trustNew)
      throws IOException {
    FleetPins pins = new FleetPins(file, trustNew);
    for (FleetPublicKey k : given) {
      pins.given.put(k.fleetId(), k);
    }
    if (Files.exists(file)) {
      JsonNode root = JSON.readTree(Files.readAllBytes(file));
      if (root == null || !root.isObject()) {
        throw new IOException(file + " is not a JSON object of fleet ids to key ids");
      }
      for (Map.Entry<String, JsonNode> e : root.properties()) {
        if (!e.getValue().isTextual()) {
          throw new IOException(file + ": fleet " + e.getKey() + "'s key id is not a string");
        }
        pins.pinned.put(e.getKey(), e.getValue().asText());
      }
    }
    return pins;
  }

  /**
   * The keys to wrap to, from the marketplace's {@code listed} fleets: the given keys if any;
   * otherwise the pinned fleets listed with their pinned keys, and the listed fleets pinned now
   * (all of them at the first contact, new ones later only with {@code trustNew}). At most {@link
   * RecipientsCodec#MAX_RECIPIENTS} keys, one per key id.
   *
   * @throws IOException if a listed key differs from the key given or pinned for its fleet (the
   *     marketplace, or whoever answers as it, substituted a key; or the fleet rotated its key, and
   *     its pin must be removed by hand), if no key is left, or if the pins cannot be written
   */
  public synchronized List<FleetPublicKey> check(List<FleetPublicKey> listed) throws IOException {
    for (FleetPublicKey k : listed) {
      String expected =
          given.containsKey(k.fleetId()) ? given.get(k.fleetId()).keyId() : pinned.get(k.fleetId());
      if (expected != null && !expected.equals(k.keyId())) {
        throw new IOException(
            "the marketplace lists fleet "
                + k.fleetId()
                + " with key "
                + k.keyId()
                + ", but this client pinned "
                + expected
                + (given.containsKey(k.fleetId()) ? " (--fleet-key)" : " in " + file)
                + ": refusing to send frames it could read; if the fleet rotated its key, check"
                + " the new key id with its operator and remove the old pin");
      }
    }
    Map<String, FleetPublicKey> out = new LinkedHashMap<>();
    if (!given.isEmpty()) {
      given.values().forEach(k -> out.putIfAbsent(k.keyId(), k));
    } else {
      boolean firstContact = pinned.isEmpty();
      boolean added = false;
      for (FleetPublicKey k : listed) {
        if (!pinned.containsKey(k.fleetId())) {
          if (!firstContact && !trustNew) {
            continue;
          }
          pinned.put(k.fleetId(), k.keyId());
          added = true;
        }
        out.putIfAbsent(k.keyId(), k);
      }
      if (added) {
        write();
      }
    }
    if (out.isEmpty()) {
      throw new IOException(
          "no pinned node fleet is listed by the marketplace: pin one with --fleet-key FILE, or"
              + " accept fleets listed after the first contact with --trust-new-fleets");
    }
    return out.values().stream().limit(RecipientsCodec.MAX_RECIPIENTS).toList();
  }

  private void write() throws IOException {
    ObjectNode root = JSON.createObjectNode();
    pinned.forEach(root::put);
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path tmp = Files.createTempFile(parent, ".known_fleets", ".tmp");
    Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
