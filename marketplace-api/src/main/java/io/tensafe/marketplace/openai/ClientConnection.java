package io.tensafe.marketplace.openai;

import io.vertx.core.http.HttpServerResponse;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream to the client that fails as soon as the client's connection is closed. The server's
 * response stream accepts writes after the peer hung up without an error, which would make a client
 * that left look like one that read everything; this one throws instead, so that the gateway ends
 * the request as the client's and bills only what it sent.
 */
final class ClientConnection extends FilterOutputStream {
  private final HttpServerResponse response;

  ClientConnection(OutputStream out, HttpServerResponse response) {
    super(out);
    this.response = response;
  }

  private void requireOpen() throws IOException {
    if (response.closed()) {
      throw new IOException("the client closed the connection");
    }
  }

  @Override
  public void write(int b) throws IOException {
    requireOpen();
    out.write(b);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    requireOpen();
    out.write(b, off, len);
  }

  @Override
  public void flush() throws IOException {
    requireOpen();
    out.flush();
  }
}
