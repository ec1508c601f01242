package io.tensafe.tgsp.safetensors;

import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes tensors as one safetensors file: tensors in name order, contiguous from data offset 0,
 * header as canonical JSON padded with spaces to a multiple of 8 bytes. The same tensors and
 * metadata always give the same bytes.
 */
public final class SafetensorsWriter {
  private SafetensorsWriter() {}

  /** Writes the file to {@code out} (not closed). Names must be unique and non-empty. */
  public static void write(List<Tensor> tensors, Map<String, String> metadata, OutputStream out)
      throws IOException {
    Map<String, Tensor> byName = new java.util.HashMap<>();
    List<Entry> entries = new ArrayList<>();
    for (Tensor t : tensors) {
      if (byName.put(t.name(), t) != null) {
        throw new IllegalArgumentException(
            "tensor names must be unique and non-empty: " + t.name());
      }
      entries.add(new Entry(t.name(), t.dtype(), t.shape()));
    }
    writeStreaming(entries, metadata, out, (name, sink) -> sink.write(byName.get(name).data()));
  }

  /** A tensor to write whose bytes are produced while writing. */
  public record Entry(String name, DType dtype, List<Long> shape) {
    public Entry {
      shape = List.copyOf(shape);
    }

    /** Bytes of the tensor's data. */
    public long byteLength() {
      long n = dtype.byteSize();
      for (long d : shape) {
        if (d < 0) {
          throw new IllegalArgumentException("negative dimension in " + shape);
        }
        n = Math.multiplyExact(n, d);
      }
      return n;
    }
  }

  /** Produces one tensor's little-endian bytes. */
  @FunctionalInterface
  public interface TensorBytes {
    void writeTo(String name, OutputStream sink) throws IOException;
  }

  /**
   * Writes the file to {@code out} (not closed), asking {@code bytes} for each tensor's data in
   * name order, so tensors larger than memory can be written. Each tensor must produce exactly its
   * {@link Entry#byteLength()} bytes.
   *
   * @throws IllegalStateException if a tensor produced another number of bytes
   */
  public static void writeStreaming(
      List<Entry> entries, Map<String, String> metadata, OutputStream out, TensorBytes bytes)
      throws IOException {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing(Entry::name));
    Map<String, JsonValue> header = new LinkedHashMap<>();
    if (!metadata.isEmpty()) {
      Map<String, JsonValue> meta = new LinkedHashMap<>();
      metadata.forEach((k, v) -> meta.put(k, new JsonString(v)));
      header.put("__metadata__", new JsonObject(meta));
    }
    long offset = 0;
    for (Entry t : sorted) {
      if (t.name().isEmpty() || header.containsKey(t.name())) {
        throw new IllegalArgumentException(
            "tensor names must be unique and non-empty: " + t.name());
      }
      List<JsonValue> shape = new ArrayList<>();
      t.shape().forEach(d -> shape.add(new JsonNumber(BigDecimal.valueOf(d))));
      long end = offset + t.byteLength();
      header.put(
          t.name(),
          new JsonObject(
              Map.of(
                  "dtype", new JsonString(t.dtype().name()),
                  "shape", new JsonArray(shape),
                  "data_offsets",
                      new JsonArray(
                          List.of(
                              new JsonNumber(BigDecimal.valueOf(offset)),
                              new JsonNumber(BigDecimal.valueOf(end)))))));
      offset = end;
    }
    byte[] json = CanonicalJson.encode(new JsonObject(header));
    int padded = (json.length + 7) & ~7;
    byte[] headerBytes = java.util.Arrays.copyOf(json, padded);
    java.util.Arrays.fill(headerBytes, json.length, padded, (byte) ' ');
    out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded).array());
    out.write(headerBytes);
    for (Entry t : sorted) {
      long[] written = {0};
      OutputStream counting =
          new java.io.FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
              out.write(b);
              written[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              out.write(b, off, len);
              written[0] += len;
            }
          };
      bytes.writeTo(t.name(), counting);
      if (written[0] != t.byteLength()) {
        throw new IllegalStateException(
            t.name() + " produced " + written[0] + " bytes, expected " + t.byteLength());
      }
    }
  }
}
