package io.tensafe.marketplace.storage;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Package bytes on disk, content-addressed by SHA-256 (ADR 0007): {@code <dir>/ab/abcdef…}. Uploads
 * stream into {@code <dir>/.incoming/} and appear at their address only by an atomic move, after
 * the caller has verified them; a failed or abandoned upload leaves nothing visible. The same bytes
 * always land at the same path, so a re-upload is idempotent.
 */
@ApplicationScoped
public class PackageStore {
  private final Path root;
  private final long maxBytes;

  public PackageStore(StorageConfig config) {
    this.root = config.directory().toAbsolutePath();
    this.maxBytes = config.maxPackageBytes();
  }

  /** A fully received upload, not yet visible at its address. */
  public record Incoming(Path file, String sha256, long size) {}

  /**
   * Streams {@code body} to an incoming file, refusing more than the size limit as soon as it is
   * exceeded. The caller must {@link #commit} or {@link #discard} the result.
   */
  public Incoming receive(InputStream body) {
    Path incoming = root.resolve(".incoming");
    Path temp;
    try {
      Files.createDirectories(incoming);
      temp = Files.createTempFile(incoming, "upload-", ".part");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    MessageDigest digest = sha256();
    long size = 0;
    try (OutputStream out = Files.newOutputStream(temp)) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = body.read(buffer)) > 0; ) {
        size += n;
        if (size > maxBytes) {
          throw new ApiProblem(
              ProblemKind.PACKAGE_TOO_LARGE,
              "the upload exceeds the limit of " + maxBytes + " bytes");
        }
        digest.update(buffer, 0, n);
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      deleteQuietly(temp);
      throw new ApiProblem(
          ProblemKind.PACKAGE_TRUNCATED,
          400,
          "Upload incomplete",
          "the request body ended early after " + size + " bytes");
    } catch (RuntimeException e) {
      deleteQuietly(temp);
      throw e;
    }
    return new Incoming(temp, HexFormat.of().formatHex(digest.digest()), size);
  }

  /**
   * Moves a verified upload to its address. Returns true if this call created the stored file,
   * false if the same bytes were already stored (the upload is then discarded).
   */
  public boolean commit(Incoming upload) {
    Path target = path(upload.sha256());
    try {
      Files.createDirectories(target.getParent());
      Files.move(upload.file(), target, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (FileAlreadyExistsException e) {
      deleteQuietly(upload.file());
      return false;
    } catch (IOException e) {
      if (Files.exists(target)) {
        deleteQuietly(upload.file());
        return false;
      }
      throw new UncheckedIOException(e);
    }
  }

  public void discard(Incoming upload) {
    deleteQuietly(upload.file());
  }

  /** Removes a stored package (only when the database rejected the row that would point at it). */
  public void remove(String sha256) {
    deleteQuietly(path(sha256));
  }

  /** The stored file for a digest, if present. */
  public Optional<Path> find(String sha256) {
    Path p = path(sha256);
    return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
  }

  Path path(String sha256) {
    if (!sha256.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("not a SHA-256 hex digest");
    }
    return root.resolve(sha256.substring(0, 2)).resolve(sha256);
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // best effort: .incoming is scratch space
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
