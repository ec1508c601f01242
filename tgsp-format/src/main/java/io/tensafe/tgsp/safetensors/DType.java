package io.tensafe.tgsp.safetensors;

import java.util.Optional;

/** The safetensors element types TGSP accepts; any other dtype is refused by name. */
public enum DType {
  F64(8),
  F32(4),
  F16(2),
  BF16(2);

  private final int byteSize;

  DType(int byteSize) {
    this.byteSize = byteSize;
  }

  /** Bytes per element. Range: {2, 4, 8}. */
  public int byteSize() {
    return byteSize;
  }

  /** The dtype with this safetensors name ("F32", "BF16", ...), if supported. */
  public static Optional<DType> fromName(String name) {
    for (DType d : values()) {
      if (d.name().equals(name)) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }
}
