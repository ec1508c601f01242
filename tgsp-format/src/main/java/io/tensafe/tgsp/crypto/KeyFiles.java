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
import java.security.PrivateKey;
import java.security.PublicKey;
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

  /** How one kind of key pair is spelled in key files. */
  private record Layout(
      String publicKind,
      String privateKind,
      String idField,
      String keyIdLabel,
      Algorithms first,
      String firstName,
      Algorithms second,
      String secondName) {}

  private static final Layout CREATOR =
      new Layout(
          CREATOR_PUBLIC,
          CREATOR_PRIVATE,
          "creator_id",
          CreatorPublicKey.KEY_ID_LABEL,
          Algorithms.ED25519,
          "ed25519",
          Algorithms.ML_DSA_65,
          "ml_dsa_65");

  private static final Layout FLEET =
      new Layout(
          FLEET_PUBLIC,
          FLEET_PRIVATE,
          "fleet_id",
          FleetPublicKey.KEY_ID_LABEL,
          Algorithms.X25519,
          "x25519",
          Algorithms.ML_KEM_768,
          "ml_kem_768");

  /** A key file's checked contents; the private keys are null in a public key file. */
  private record Parsed(
      String id,
      PublicKey first,
      PublicKey second,
      PrivateKey firstPrivate,
      PrivateKey secondPrivate) {}

  public static void writeCreatorPublic(CreatorPublicKey key, Path file) throws IOException {
    write(file, creatorPublicJson(key), false);
  }

  public static void writeCreatorPrivate(CreatorKeyPair pair, Path file) throws IOException {
    CreatorPublicKey key = pair.publicKey();
    write(
        file,
        json(
            CREATOR,
            true,
            key.creatorId(),
            key.keyId(),
            key.ed25519(),
            key.mlDsa65(),
            pair.ed25519(),
            pair.mlDsa65()),
        true);
  }

  public static void writeFleetPublic(FleetPublicKey key, Path file) throws IOException {
    write(file, fleetPublicJson(key), false);
  }

  /** The canonical JSON of a fleet public key file (what the marketplace publishes). */
  public static JsonObject fleetPublicJson(FleetPublicKey key) {
    return json(FLEET, false, key.fleetId(), key.keyId(), key.x25519(), key.mlKem768(), null, null);
  }

  public static void writeFleetPrivate(FleetKeyPair pair, Path file) throws IOException {
    FleetPublicKey key = pair.publicKey();
    write(
        file,
        json(
            FLEET,
            true,
            key.fleetId(),
            key.keyId(),
            key.x25519(),
            key.mlKem768(),
            pair.x25519(),
            pair.mlKem768()),
        true);
  }

  /** The canonical JSON of a creator public key file (also what the marketplace stores). */
  public static JsonObject creatorPublicJson(CreatorPublicKey key) {
    return json(
        CREATOR, false, key.creatorId(), key.keyId(), key.ed25519(), key.mlDsa65(), null, null);
  }

  public static CreatorPublicKey readCreatorPublic(Path file) throws IOException, TgspException {
    return parseCreatorPublic(file.toString(), read(file));
  }

  /** Parses a creator public key document, e.g. one a creator uploaded to the marketplace. */
  public static CreatorPublicKey parseCreatorPublic(String source, byte[] json)
      throws TgspException {
    Parsed p = parse(source, json, CREATOR, false);
    return new CreatorPublicKey(p.id(), p.first(), p.second());
  }

  public static CreatorKeyPair readCreatorPrivate(Path file) throws IOException, TgspException {
    Parsed p = parse(file.toString(), read(file), CREATOR, true);
    return new CreatorKeyPair(
        new CreatorPublicKey(p.id(), p.first(), p.second()), p.firstPrivate(), p.secondPrivate());
  }

  public static FleetPublicKey readFleetPublic(Path file) throws IOException, TgspException {
    return parseFleetPublic(file.toString(), read(file));
  }

  /** Parses a fleet public key document, e.g. one the marketplace publishes. */
  public static FleetPublicKey parseFleetPublic(String source, byte[] json) throws TgspException {
    Parsed p = parse(source, json, FLEET, false);
    return new FleetPublicKey(p.id(), p.first(), p.second());
  }

  public static FleetKeyPair readFleetPrivate(Path file) throws IOException, TgspException {
    Parsed p = parse(file.toString(), read(file), FLEET, true);
    return new FleetKeyPair(
        new FleetPublicKey(p.id(), p.first(), p.second()), p.firstPrivate(), p.secondPrivate());
  }

  private static JsonObject json(
      Layout layout,
      boolean secret,
      String id,
      String keyId,
      PublicKey first,
      PublicKey second,
      PrivateKey firstPrivate,
      PrivateKey secondPrivate) {
    Map<String, JsonValue> m =
        header(secret ? layout.privateKind() : layout.publicKind(), layout.idField(), id);
    m.put("key_id", new JsonString(keyId));
    String suffix = secret ? "_public" : "";
    m.put(layout.firstName() + suffix, b64(first));
    m.put(layout.secondName() + suffix, b64(second));
    if (secret) {
      m.put(layout.firstName() + "_private", b64(firstPrivate));
      m.put(layout.secondName() + "_private", b64(secondPrivate));
    }
    return new JsonObject(m);
  }

  private static Parsed parse(String source, byte[] json, Layout layout, boolean secret)
      throws TgspException {
    ObjectReader r = document(source, json, secret ? layout.privateKind() : layout.publicKind());
    String suffix = secret ? "_public" : "";
    String first = layout.firstName() + suffix;
    String second = layout.secondName() + suffix;
    Set<String> fields =
        new java.util.HashSet<>(Set.of("kind", layout.idField(), "key_id", first, second));
    if (secret) {
      fields.addAll(Set.of(layout.firstName() + "_private", layout.secondName() + "_private"));
    }
    r.allowOnly(fields);
    String id = id(r, layout.idField());
    PublicKey firstKey = layout.first().publicKey(bytes(r, first));
    PublicKey secondKey = layout.second().publicKey(bytes(r, second));
    checkKeyId(source, r, CreatorPublicKey.keyId(layout.keyIdLabel(), firstKey, secondKey));
    return new Parsed(
        id,
        firstKey,
        secondKey,
        secret ? layout.first().privateKey(bytes(r, layout.firstName() + "_private")) : null,
        secret ? layout.second().privateKey(bytes(r, layout.secondName() + "_private")) : null);
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
