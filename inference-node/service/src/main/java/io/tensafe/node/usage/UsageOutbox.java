package io.tensafe.node.usage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A durable local queue of usage reports: one file per request id in a folder. {@link #put} writes
 * a temporary file, forces it to disk, renames it atomically to {@code <requestId>.json} and forces
 * the folder, so after it returns a crash (even {@code kill -9} or power loss) cannot lose the
 * report, and a crash during it leaves at most a temporary file that is ignored and cleaned up.
 * Reports leave only by {@link #remove} (after the marketplace acknowledged them) or {@link
 * #reject} (moved to {@code rejected/} for an operator to inspect). Thread-safe.
 */
public final class UsageOutbox {
  private static final Pattern NAME = Pattern.compile("[0-9a-f-]{36}\\.json");
  private final Path folder;

  public UsageOutbox(Path folder) throws IOException {
    this.folder = folder;
    Files.createDirectories(folder);
    try (DirectoryStream<Path> temps = Files.newDirectoryStream(folder, ".*.tmp")) {
      for (Path t : temps) {
        Files.deleteIfExists(t);
      }
    }
  }

  public Path folder() {
    return folder;
  }

  /** Stores {@code json} (one report) under {@code requestId} durably; replaces none. */
  public void put(String requestId, byte[] json) throws IOException {
    Path target = file(requestId);
    Path temp = folder.resolve("." + requestId + ".tmp");
    try (FileChannel c =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      c.write(java.nio.ByteBuffer.wrap(json));
      c.force(true);
    }
    if (Files.exists(target)) {
      Files.delete(temp);
      throw new IOException("a report for request " + requestId + " is already queued");
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.delete(temp);
      throw e;
    }
    forceFolder();
  }

  /** Request ids queued now, oldest file first. */
  public List<String> pending() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder, "*.json")) {
      for (Path p : stream) {
        if (NAME.matcher(p.getFileName().toString()).matches()) {
          files.add(p);
        }
      }
    }
    files.sort(
        (a, b) -> {
          try {
            return Files.getLastModifiedTime(a).compareTo(Files.getLastModifiedTime(b));
          } catch (IOException e) {
            return 0;
          }
        });
    return files.stream().map(p -> p.getFileName().toString().replace(".json", "")).toList();
  }

  /** The stored report of {@code requestId}. */
  public byte[] read(String requestId) throws IOException {
    return Files.readAllBytes(file(requestId));
  }

  /** Deletes an acknowledged report. */
  public void remove(String requestId) throws IOException {
    Files.deleteIfExists(file(requestId));
    forceFolder();
  }

  /**
   * Moves a report the marketplace refused for good to {@code rejected/}, with {@code reason} (at
   * most 4,096 characters of it) beside it in {@code <requestId>.reason.txt}.
   */
  public void reject(String requestId, String reason) throws IOException {
    Path rejected = folder.resolve("rejected");
    Files.createDirectories(rejected);
    String kept = reason.length() > 4096 ? reason.substring(0, 4096) : reason;
    Files.writeString(rejected.resolve(requestId + ".reason.txt"), kept + "\n");
    Files.move(
        file(requestId),
        rejected.resolve(requestId + ".json"),
        StandardCopyOption.REPLACE_EXISTING);
    forceFolder();
  }

  private Path file(String requestId) {
    if (!NAME.matcher(requestId + ".json").matches()) {
      throw new IllegalArgumentException("request id " + requestId + " is not a UUID");
    }
    return folder.resolve(requestId + ".json");
  }

  private void forceFolder() throws IOException {
    try (FileChannel dir = FileChannel.open(folder, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
