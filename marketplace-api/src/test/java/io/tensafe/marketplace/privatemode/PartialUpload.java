package io.tensafe.marketplace.privatemode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A {@code POST} written by hand on a loopback socket, so a test decides how much of the declared
 * body is sent before it reads the answer: an answer that arrives while most of the body is unsent
 * was given without reading it. Not thread-safe.
 */
final class PartialUpload implements AutoCloseable {
  /** The status line's code, the headers (lower-case names) and the body of an answer. */
  record Answer(int status, Map<String, String> headers, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final Socket socket;
  private final OutputStream out;
  private long sent;

  /**
   * Sends the request line and headers of a {@code POST} of {@code declaredLength} bytes to {@code
   * path} with {@code apiKey}, and no byte of the body yet.
   */
  PartialUpload(int port, String path, String apiKey, long declaredLength) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(15_000);
    out = socket.getOutputStream();
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1:"
            + port
            + "\r\nAuthorization: Bearer "
            + apiKey
            + "\r\nContent-Type: application/octet-stream\r\nContent-Length: "
            + declaredLength
            + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Sends {@code bytes} of the body. */
  PartialUpload send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    sent += bytes.length;
    return this;
  }

  /** Body bytes sent so far. */
  long sent() {
    return sent;
  }

  /**
   * Reads the answer (status line, headers, and a body of its {@code Content-Length}), waiting at
   * most 15 s for each read.
   *
   * @throws java.net.SocketTimeoutException when none comes: the server is waiting for the body
   */
  Answer answer() throws IOException {
    InputStream in = socket.getInputStream();
    String status = line(in);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      int colon = h.indexOf(':');
      headers.put(
          h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(length);
    return new Answer(Integer.parseInt(status.split(" ")[1]), headers, body);
  }

  /**
   * Whether the server closes the connection after its answer (nothing more arrives, then the end
   * of the stream), waiting at most 15 s.
   */
  boolean closedByServer() throws IOException {
    try {
      return socket.getInputStream().read() < 0;
    } catch (java.net.SocketException e) {
      return true; // reset: closed with the client's bytes unread
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("the connection closed inside the answer's head");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
