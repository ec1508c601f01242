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
 * Serves package bytes to a registered node of the package's fleet, with a strong ETag (the
 * SHA-256) and single byte ranges ({@code Range: bytes=a-b}, {@code a-} or {@code -n}).
 */
@ApplicationScoped
public class PackageDownload {
  private static final java.util.regex.Pattern RANGE =
      java.util.regex.Pattern.compile("bytes=(\\d*)-(\\d*)");

  @Inject AdapterVersionRepository versions;
  @Inject NodeService nodes;
  @Inject PackageStore store;

  public Response serve(
      String nodeName, String adapterRef, String version, String range, String ifNoneMatch) {
    Node node =
        nodes
            .own(nodeName)
            .orElseThrow(() -> ProblemTypes.notFound("node " + nodeName + " (register first)"));
    if (node.suspendedAt != null) {
      throw new ApiProblem(ProblemKind.FORBIDDEN, "this node is suspended");
    }
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

  private static Response unsatisfiable(long size) {
    return Response.status(416).header("Content-Range", "bytes */" + size).build();
  }
}
