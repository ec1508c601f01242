package io.tensafe.tgsp.safetensors;

import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonSyntaxException;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed and fully checked safetensors header.
 *
 * <p>Invariants: tensors are sorted by {@code begin}; their byte ranges are contiguous from 0 and
 * end exactly at {@code dataLength} (no gaps, no overlaps, no trailing bytes); every range length
 * equals element count × dtype size, computed with overflow checks; names are unique and non-empty.
 *
 * @param tensors the tensors in data order
 * @param metadata the optional {@code __metadata__} string map
 * @param headerLength the JSON header's size in bytes (the file's data starts at 8 + headerLength)
 * @param dataLength size of the data section in bytes
 */
public record SafetensorsHeader(
    List<TensorInfo> tensors, Map<String, String> metadata, long headerLength, long dataLength) {
  /** Largest header accepted, in bytes (16 MiB: hundreds of thousands of tensor entries). */
  public static final int MAX_HEADER_BYTES = 16 << 20;

  /** Most tensors one file may declare. */
  public static final int MAX_TENSORS = 1 << 16;

  /** Largest dimension, so that per-tensor element counts fit the readers' int arrays. */
  public static final long MAX_DIMENSION = Integer.MAX_VALUE;

  private static final String METADATA_KEY = "__metadata__";

  public SafetensorsHeader {
    tensors = List.copyOf(tensors);
    metadata = Map.copyOf(metadata);
  }

  /** The tensor with this name, if present. */
  public java.util.Optional<TensorInfo> tensor(String name) {
    return tensors.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  /**
   * Parses and checks a header.
   *
   * @param json the header bytes (trailing spaces allowed, as writers pad to 8 bytes)
   * @param dataLength the size of the data section that follows the header, in bytes
   */
  public static SafetensorsHeader parse(byte[] json, long dataLength)
      throws MalformedSafetensorsException {
    JsonValue root;
    try {
      root =
          JsonParser.parse(
              "safetensors header",
              json,
              new JsonLimits(MAX_HEADER_BYTES, 4, 1 << 16, 24, MAX_TENSORS + 1));
    } catch (JsonSyntaxException e) {
      throw new MalformedSafetensorsException(e.getMessage(), e);
    }
    if (!(root instanceof JsonObject object)) {
      throw new MalformedSafetensorsException("safetensors header is not a JSON object");
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    List<TensorInfo> tensors = new ArrayList<>();
    for (Map.Entry<String, JsonValue> member : object.members().entrySet()) {
      if (member.getKey().equals(METADATA_KEY)) {
        metadata = metadata(member.getValue());
      } else {
        tensors.add(tensor(member.getKey(), member.getValue()));
      }
    }
    tensors.sort(Comparator.comparingLong(TensorInfo::begin));
    long expected = 0;
    for (TensorInfo t : tensors) {
      if (t.begin() != expected) {
        throw new MalformedSafetensorsException(
            "tensor '"
                + t.name()
                + "' starts at data offset "
                + t.begin()
                + ", expected "
                + expected
                + " (offsets must be contiguous from 0)");
      }
      expected = t.end();
    }
    if (expected != dataLength) {
      throw new MalformedSafetensorsException(
          "tensors cover "
              + expected
              + " bytes but the data section holds "
              + dataLength
              + (expected < dataLength ? " (trailing bytes)" : " (truncated)"));
    }
    return new SafetensorsHeader(tensors, metadata, json.length, dataLength);
  }

  private static Map<String, String> metadata(JsonValue value)
      throws MalformedSafetensorsException {
    if (!(value instanceof JsonObject o)) {
      throw new MalformedSafetensorsException("__metadata__ must be an object of strings");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonValue> e : o.members().entrySet()) {
      if (!(e.getValue() instanceof JsonString s)) {
        throw new MalformedSafetensorsException(
            "__metadata__." + e.getKey() + " must be a string, was " + e.getValue().typeName());
      }
      out.put(e.getKey(), s.value());
    }
    return out;
  }

  private static TensorInfo tensor(String name, JsonValue value)
      throws MalformedSafetensorsException {
    if (name.isEmpty()) {
      throw new MalformedSafetensorsException("a tensor has an empty name");
    }
    if (!(value instanceof JsonObject o)) {
      throw new MalformedSafetensorsException("tensor '" + name + "' entry is not an object");
    }
    Set<String> unknown = new java.util.TreeSet<>(o.members().keySet());
    unknown.removeAll(Set.of("dtype", "shape", "data_offsets"));
    if (!unknown.isEmpty()) {
      throw new MalformedSafetensorsException(
          "tensor '" + name + "' has unknown fields " + unknown);
    }
    if (!(o.members().get("dtype") instanceof JsonString dtypeName)) {
      throw new MalformedSafetensorsException("tensor '" + name + "' has no string dtype");
    }
    DType dtype =
        DType.fromName(dtypeName.value())
            .orElseThrow(
                () ->
                    new MalformedSafetensorsException(
                        "tensor '"
                            + name
                            + "' has dtype "
                            + dtypeName.value()
                            + "; supported: F64, F32, F16, BF16"));
    List<Long> shape = integers(name, "shape", o.members().get("shape"), 8, MAX_DIMENSION);
    List<Long> offsets =
        integers(name, "data_offsets", o.members().get("data_offsets"), 2, Long.MAX_VALUE);
    if (offsets.size() != 2 || offsets.get(1) < offsets.get(0)) {
      throw new MalformedSafetensorsException(
          "tensor '" + name + "' data_offsets must be [begin, end] with begin <= end");
    }
    long bytes;
    try {
      long elements = 1;
      for (long d : shape) {
        elements = Math.multiplyExact(elements, d);
      }
      bytes = Math.multiplyExact(elements, dtype.byteSize());
    } catch (ArithmeticException e) {
      throw new MalformedSafetensorsException(
          "tensor '" + name + "' shape " + shape + " overflows a 64-bit byte count");
    }
    if (offsets.get(1) - offsets.get(0) != bytes) {
      throw new MalformedSafetensorsException(
          "tensor '"
              + name
              + "' spans "
              + (offsets.get(1) - offsets.get(0))
              + " bytes but shape "
              + shape
              + " of "
              + dtype
              + " needs "
              + bytes);
    }
    return new TensorInfo(name, dtype, shape, offsets.get(0), offsets.get(1));
  }

  private static List<Long> integers(
      String tensor, String field, JsonValue value, int maxCount, long max)
      throws MalformedSafetensorsException {
    if (!(value instanceof JsonArray array) || array.elements().size() > maxCount) {
      throw new MalformedSafetensorsException(
          "tensor '" + tensor + "' " + field + " must be an array of at most " + maxCount);
    }
    List<Long> out = new ArrayList<>();
    for (JsonValue v : array.elements()) {
      BigDecimal n = v instanceof JsonNumber number ? number.value().stripTrailingZeros() : null;
      if (n == null
          || n.scale() > 0
          || n.signum() < 0
          || n.compareTo(BigDecimal.valueOf(max)) > 0) {
        throw new MalformedSafetensorsException(
            "tensor '"
                + tensor
                + "' "
                + field
                + " holds "
                + v
                + ", not an integer in [0, "
                + max
                + "]");
      }
      out.add(n.longValueExact());
    }
    return out;
  }
}
