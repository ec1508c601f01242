package io.tensafe.tgsp.crypto;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import io.tensafe.tgsp.json.ObjectReader;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Key;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads and writes key files: small canonical-JSON documents with a {@code kind}, the owner id, the
 * derived {@code key_id} and base64 keys (X.509 public, PKCS#8 private). On reading, the key id is
 * recomputed and must match. Private key files are created with mode 600 before any key byte is
 * written, then moved into place atomically; existing files are never overwritten.
 */
public final class KeyFiles {
  static final String CREATOR_PUBLIC = "tgsp-creator-public-key/v1";
  static final String CREATOR_PRIVATE = "tgsp-creator-private-key/v1";
  static final String FLEET_PUBLIC = "tgsp-fleet-public-key/v1";
  static final String FLEET_PRIVATE = "tgsp-fleet-private-key/v1";

  /** Largest key file read, in bytes. */
  public static final int MAX_KEY_FILE_BYTES = 64 << 10;

  private KeyFiles() {}

  public static void writeCreatorPublic(CreatorPublicKey key, Path file) throws IOException {
    write(file, creatorPublicJson(key), false);
  }

  public static void writeCreatorPrivate(CreatorKeyPair pair, Path file) throws IOException {
    Map<String, JsonValue> m = header(CREATOR_PRIVATE, "creator_id", pair.publicKey().creatorId());
    m.put("key_id", new JsonString(pair.publicKey().keyId()));
    m.put("ed25519_public", b64(pair.publicKey().ed25519()));
    m.put("ed25519_private", b64(pair.ed25519()));
    m.put("ml_dsa_65_public", b64(pair.publicKey().mlDsa65()));
    m.put("ml_dsa_65_private", b64(pair.mlDsa65()));
    write(file, new JsonObject(m), true);
  }

  public static void writeFleetPublic(FleetPublicKey key, Path file) throws IOException {
    Map<String, JsonValue> m = header(FLEET_PUBLIC, "fleet_id", key.fleetId());
    m.put("key_id", new JsonString(key.keyId()));
    m.put("x25519", b64(key.x25519()));
    m.put("ml_kem_768", b64(key.mlKem768()));
    write(file, new JsonObject(m), false);
  }

  public static void writeFleetPrivate(FleetKeyPair pair, Path file) throws IOException {
    Map<String, JsonValue> m = header(FLEET_PRIVATE, "fleet_id", pair.publicKey().fleetId());
    m.put("key_id", new JsonString(pair.publicKey().keyId()));
    m.put("x25519_public", b64(pair.publicKey().x25519()));
    m.put("x25519_private", b64(pair.x25519()));
    m.put("ml_kem_768_public", b64(pair.publicKey().mlKem768()));
    m.put("ml_kem_768_private", b64(pair.mlKem768()));
    write(file, new JsonObject(m), true);
  }

  /** The canonical JSON of a creator public key file (also what the marketplace stores). */
  public static JsonObject creatorPublicJson(CreatorPublicKey key) {
    Map<String, JsonValue> m = header(CREATOR_PUBLIC, "creator_id", key.creatorId());
    m.put("key_id", new JsonString(key.keyId()));
    m.put("ed25519", b64(key.ed25519()));
    m.put("ml_dsa_65", b64(key.mlDsa65()));
    return new JsonObject(m);
  }

  public static CreatorPublicKey readCreatorPublic(Path file) throws IOException, TgspException {
    return parseCreatorPublic(file.toString(), read(file));
  }

  /** Parses a creator public key document, e.g. one a creator uploaded to the marketplace. */
  public static CreatorPublicKey parseCreatorPublic(String source, byte[] json)
      throws TgspException {
    ObjectReader r = document(source, json, CREATOR_PUBLIC);
    r.allowOnly(Set.of("kind", "creator_id", "key_id", "ed25519", "ml_dsa_65"));
    CreatorPublicKey key =
        new CreatorPublicKey(
            id(r, "creator_id"),
            Algorithms.ED25519.publicKey(bytes(r, "ed25519")),
            Algorithms.ML_DSA_65.publicKey(bytes(r, "ml_dsa_65")));
    checkKeyId(source, r, key.keyId());
    return key;
  }

  public static CreatorKeyPair readCreatorPrivate(Path file) throws IOException, TgspException {
    ObjectReader r = document(file.toString(), read(file), CREATOR_PRIVATE);
    r.allowOnly(
        Set.of(
            "kind",
            "creator_id",
            "key_id",
            "ed25519_public",
            "ed25519_private",
            "ml_dsa_65_public",
            "ml_dsa_65_private"));
    CreatorPublicKey key =
        new CreatorPublicKey(
            id(r, "creator_id"),
            Algorithms.ED25519.publicKey(bytes(r, "ed25519_public")),
            Algorithms.ML_DSA_65.publicKey(bytes(r, "ml_dsa_65_public")));
    checkKeyId(file.toString(), r, key.keyId());
    return new CreatorKeyPair(
        key,
        Algorithms.ED25519.privateKey(bytes(r, "ed25519_private")),
        Algorithms.ML_DSA_65.privateKey(bytes(r, "ml_dsa_65_private")));
  }

  public static FleetPublicKey readFleetPublic(Path file) throws IOException, TgspException {
    return parseFleetPublic(file.toString(), read(file));
  }

  /** Parses a fleet public key document, e.g. one the marketplace publishes. */
  public static FleetPublicKey parseFleetPublic(String source, byte[] json) throws TgspException {
    ObjectReader r = document(source, json, FLEET_PUBLIC);
    r.allowOnly(Set.of("kind", "fleet_id", "key_id", "x25519", "ml_kem_768"));
    FleetPublicKey key =
        new FleetPublicKey(
            id(r, "fleet_id"),
            Algorithms.X25519.publicKey(bytes(r, "x25519")),
            Algorithms.ML_KEM_768.publicKey(bytes(r, "ml_kem_768")));
    checkKeyId(source, r, key.keyId());
    return key;
  }

  public static FleetKeyPair readFleetPrivate(Path file) throws IOException, TgspException {
    ObjectReader r = document(file.toString(), read(file), FLEET_PRIVATE);
    r.allowOnly(
        Set.of(
            "kind",
            "fleet_id",
            "key_id",
            "x25519_public",
            "x25519_private",
            "ml_kem_768_public",
            "ml_kem_768_private"));
    FleetPublicKey key =
        new FleetPublicKey(
            id(r, "fleet_id"),
            Algorithms.X25519.publicKey(bytes(r, "x25519_public")),
            Algorithms.ML_KEM_768.publicKey(bytes(r, "ml_kem_768_public")));
    checkKeyId(file.toString(), r, key.keyId());
    return new FleetKeyPair(
        key,
        Algorithms.X25519.privateKey(bytes(r, "x25519_private")),
        Algorithms.ML_KEM_768.privateKey(bytes(r, "ml_kem_768_private")));
  }

  private static Map<String, JsonValue> header(String kind, String idField, String id) {
    Map<String, JsonValue> m = new LinkedHashMap<>();
    m.put("kind", new JsonString(kind));
    m.put(idField, new JsonString(id));
    return m;
  }

  private static JsonString b64(Key key) {
    return new JsonString(Base64.getEncoder().encodeToString(key.getEncoded()));
  }

  private static byte[] read(Path file) throws IOException, KeyFileException {
    long size = Files.size(file);
    if (size > MAX_KEY_FILE_BYTES) {
      throw new KeyFileException(
          file + " is " + size + " bytes, over the key file limit of " + MAX_KEY_FILE_BYTES);
    }
    return Files.readAllBytes(file);
  }

  private static ObjectReader document(String source, byte[] json, String kind)
      throws TgspException {
    ObjectReader r =
        new ObjectReader(source, JsonParser.parse(source, json, JsonLimits.document()));
    String actual = r.string("kind");
    if (!actual.equals(kind)) {
      throw new KeyFileException(source + " is a " + actual + " file, expected " + kind);
    }
    return r;
  }

  private static String id(ObjectReader r, String field) throws TgspException {
    return r.string(field, CreatorPublicKey.ID_PATTERN, "a valid id");
  }

  private static byte[] bytes(ObjectReader r, String field) throws TgspException {
    try {
      return Base64.getDecoder().decode(r.string(field));
    } catch (IllegalArgumentException e) {
      throw new KeyFileException(r.field(field) + " is not valid base64");
    }
  }

  private static void checkKeyId(String source, ObjectReader r, String derived)
      throws TgspException {
    String claimed = r.string("key_id");
    if (!claimed.equals(derived)) {
      throw new KeyFileException(
          source + ": key_id " + claimed + " does not match its keys (" + derived + ")");
    }
  }

  private static void write(Path file, JsonObject json, boolean secret) throws IOException {
    if (Files.exists(file)) {
      throw new FileAlreadyExistsException(file.toString(), null, "refusing to overwrite a key");
    }
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp =
        Files.createTempFile(
            dir,
            ".tgsp-key-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--")));
    try {
      Files.write(temp, CanonicalJson.encode(json));
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
