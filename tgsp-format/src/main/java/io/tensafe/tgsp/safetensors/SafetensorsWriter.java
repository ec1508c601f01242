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
    List<Tensor> sorted = new ArrayList<>(tensors);
    sorted.sort(Comparator.comparing(Tensor::name));
    Map<String, JsonValue> header = new LinkedHashMap<>();
    if (!metadata.isEmpty()) {
      Map<String, JsonValue> meta = new LinkedHashMap<>();
      metadata.forEach((k, v) -> meta.put(k, new JsonString(v)));
      header.put("__metadata__", new JsonObject(meta));
    }
    long offset = 0;
    for (Tensor t : sorted) {
      if (t.name().isEmpty() || header.containsKey(t.name())) {
        throw new IllegalArgumentException(
            "tensor names must be unique and non-empty: " + t.name());
      }
      List<JsonValue> shape = new ArrayList<>();
      t.shape().forEach(d -> shape.add(new JsonNumber(BigDecimal.valueOf(d))));
      long end = offset + t.data().length;
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
    for (Tensor t : sorted) {
      out.write(t.data());
    }
  }
}
