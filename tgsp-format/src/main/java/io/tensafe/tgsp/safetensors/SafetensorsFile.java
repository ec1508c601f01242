package io.tensafe.tgsp.safetensors;

import io.tensafe.tgsp.io.LimitExceededException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A safetensors file opened for reading. The header is read and checked in full by {@link #open}
 * (its size is checked against {@link SafetensorsHeader#MAX_HEADER_BYTES} before it is read);
 * tensor data is read on demand, so large files are never loaded whole.
 */
public final class SafetensorsFile implements Closeable {
  /** Largest single tensor {@link #read} loads into memory, in bytes (1 GiB). */
  public static final long MAX_TENSOR_BYTES = 1L << 30;

  private final FileChannel channel;
  private final SafetensorsHeader header;

  private SafetensorsFile(FileChannel channel, SafetensorsHeader header) {
    this.channel = channel;
    this.header = header;
  }

  /** Opens and checks {@code path}; the caller closes the result. */
  public static SafetensorsFile open(Path path)
      throws IOException, MalformedSafetensorsException, LimitExceededException {
    FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
    try {
      long size = channel.size();
      if (size < 8) {
        throw new MalformedSafetensorsException(
            path.getFileName() + " is " + size + " bytes, shorter than the 8-byte header length");
      }
      ByteBuffer lengthBytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(channel, lengthBytes, 0);
      long headerLength = lengthBytes.flip().getLong();
      if (headerLength < 0 || headerLength > SafetensorsHeader.MAX_HEADER_BYTES) {
        throw new LimitExceededException(
            "safetensors header length", headerLength, SafetensorsHeader.MAX_HEADER_BYTES);
      }
      if (headerLength > size - 8) {
        throw new MalformedSafetensorsException(
            "safetensors header length " + headerLength + " exceeds the file's " + (size - 8));
      }
      ByteBuffer json = ByteBuffer.allocate((int) headerLength);
      readFully(channel, json, 8);
      SafetensorsHeader header = SafetensorsHeader.parse(json.array(), size - 8 - headerLength);
      return new SafetensorsFile(channel, header);
    } catch (IOException | MalformedSafetensorsException | LimitExceededException e) {
      channel.close();
      throw e;
    }
  }

  public SafetensorsHeader header() {
    return header;
  }

  /** Loads one tensor; refuses tensors over {@link #MAX_TENSOR_BYTES}. */
  public Tensor read(TensorInfo info) throws IOException, LimitExceededException {
    if (info.byteLength() > MAX_TENSOR_BYTES) {
      throw new LimitExceededException(
          "tensor '" + info.name() + "' size", info.byteLength(), MAX_TENSOR_BYTES);
    }
    ByteBuffer data = ByteBuffer.allocate((int) info.byteLength());
    readFully(channel, data, 8 + header.headerLength() + info.begin());
    return new Tensor(info.name(), info.dtype(), info.shape(), data.array());
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position);
      if (n < 0) {
        throw new IOException("file shrank while being read");
      }
      position += n;
    }
  }
}
