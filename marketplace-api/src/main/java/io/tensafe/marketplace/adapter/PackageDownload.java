package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.fleet.Node;
import io.tensafe.marketplace.fleet.NodeService;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.storage.PackageStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;

/**
 * Serves package bytes to a usable node (see {@code fleet.NodeCredentials}) of the package's fleet,
 * with a strong ETag (the SHA-256) and single byte ranges ({@code Range: bytes=a-b}, {@code a-} or
 * {@code -n}). A response that carried the whole package, sent to its end, is recorded for the
 * node's credential: a node's declaration that it holds a version counts only after that.
 */
@ApplicationScoped
public class PackageDownload {
  private static final java.util.regex.Pattern RANGE =
      java.util.regex.Pattern.compile("bytes=(\\d*)-(\\d*)");

  @Inject AdapterVersionRepository versions;
  @Inject NodeService nodes;
  @Inject PackageStore store;
  @Inject io.agroal.api.AgroalDataSource database;

  public Response serve(
      String nodeName, String adapterRef, String version, String range, String ifNoneMatch) {
    Node node =
        nodes
            .own(nodeName)
            .orElseThrow(() -> ProblemTypes.notFound("node " + nodeName + " (register first)"));
    nodes.requireUsable(node);
    AdapterVersion v =
        versions
            .forFleet(adapterRef, version, node.fleetId)
            .orElseThrow(
                () ->
                    ProblemTypes.notFound(
                        "package " + adapterRef + "@" + version + " for this node's fleet"));
    String etag = "\"" + v.packageSha256.trim() + "\"";
    if (etag.equals(ifNoneMatch)) {
      return Response.notModified().tag(v.packageSha256.trim()).build();
    }
    Path file =
        store
            .find(v.packageSha256.trim())
            .orElseThrow(
                () ->
                    new ApiProblem(
                        ProblemKind.HTTP,
                        503,
                        "Not yet available",
                        "the package is being stored; retry shortly"));
    long size = v.packageBytes;
    long start = 0;
    long end = size - 1;
    boolean partial = false;
    if (range != null) {
      Matcher m = RANGE.matcher(range.trim());
      if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
        return unsatisfiable(size);
      }
      if (m.group(1).isEmpty()) {
        start = Math.max(0, size - Long.parseLong(m.group(2)));
      } else {
        start = Long.parseLong(m.group(1));
        if (!m.group(2).isEmpty()) {
          end = Math.min(end, Long.parseLong(m.group(2)));
        }
      }
      if (start > end || start >= size) {
        return unsatisfiable(size);
      }
      partial = true;
    }
    long from = start;
    long length = end - start + 1;
    boolean whole = start == 0 && end == size - 1;
    String credential = node.clientId;
    java.util.UUID versionId = v.id;
    StreamingOutput body =
        out -> {
          try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
              InputStream in = Channels.newInputStream(channel.position(from))) {
            long left = length;
            byte[] buffer = new byte[1 << 16];
            while (left > 0) {
              int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
              if (n < 0) {
                throw new IOException("package file is shorter than recorded");
              }
              out.write(buffer, 0, n);
              left -= n;
            }
          }
          if (whole) {
            recordDownload(credential, versionId);
          }
        };
    Response.ResponseBuilder r =
        Response.status(partial ? 206 : 200)
            .type("application/octet-stream")
            .header("ETag", etag)
            .header("Accept-Ranges", "bytes")
            .header("Content-Length", length)
            .entity(body);
    if (partial) {
      r.header("Content-Range", "bytes " + start + "-" + end + "/" + size);
    }
    return r.build();
  }

  /**
   * Records that credential {@code clientId} received the whole package of version {@code
   * versionId} (table {@code node_download}, V31): only then does its nodes' declaration that they
   * hold that version count when choosing nodes. Written after the last byte was handed to the
   * connection, in its own statement (the response is streamed after the request's transaction).
   */
  private void recordDownload(String clientId, java.util.UUID versionId) throws IOException {
    try (java.sql.Connection c = database.getConnection();
        java.sql.PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO node_download (client_id, adapter_version_id) VALUES (?, ?)"
                    + " ON CONFLICT DO NOTHING")) {
      c.setAutoCommit(true);
      insert.setString(1, clientId);
      insert.setObject(2, versionId);
      insert.executeUpdate();
    } catch (java.sql.SQLException e) {
      throw new IOException("could not record the package download", e);
    }
  }

  private static Response unsatisfiable(long size) {
    return Response.status(416).header("Content-Range", "bytes */" + size).build();
  }
}
