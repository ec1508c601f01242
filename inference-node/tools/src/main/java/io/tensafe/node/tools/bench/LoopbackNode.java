package io.tensafe.node.tools.bench;

import com.sun.net.httpserver.HttpServer;
import io.tensafe.node.privatemode.FrameExchange;
import io.tensafe.node.privatemode.NodeSession;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.MalformedFrameException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node session behind one loopback HTTP hop, for the private-mode benchmark: frames go as request
 * bodies and answers come back as response bodies, so the timing includes their encoding, copying
 * and transfer. Counts the time the node spent answering.
 */
final class LoopbackNode implements FrameExchange, AutoCloseable {
  private final HttpServer server;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI uri;
  private final AtomicLong nodeNanos = new AtomicLong();

  LoopbackNode(NodeSession session) throws IOException {
    // The JDK's server leaves Nagle's algorithm on, which with delayed ACKs stalls small answers
    // by 40 ms; production relays (Quarkus) set TCP_NODELAY, so the bench does too.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    FrameLimits limits = new FrameLimits(1 << 30, 0xFFFF, 1 << 30);
    server.createContext(
        "/frames",
        x -> {
          try (x;
              InputStream in = x.getRequestBody()) {
            byte[] frame = in.readAllBytes();
            long start = System.nanoTime();
            byte[] answer;
            try {
              answer = session.answer(frame, limits);
            } catch (MalformedFrameException e) {
              x.sendResponseHeaders(400, -1);
              return;
            }
            nodeNanos.addAndGet(System.nanoTime() - start);
            x.sendResponseHeaders(200, answer.length);
            x.getResponseBody().write(answer);
          }
        });
    server.start();
    uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/frames");
  }

  /** Time the node spent in its HE rounds so far, in nanoseconds. */
  long nodeNanos() {
    return nodeNanos.get();
  }

  @Override
  public byte[] exchange(byte[] frame) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(frame)).build();
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() != 200) {
        throw new IOException("the node refused a frame: " + response.statusCode());
      }
      return response.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
