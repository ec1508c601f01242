package io.tensafe.marketplace.fleet;

import io.tensafe.tgsp.peft.BaseModelShape;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * The shape of the model a node serves, from its {@code config.json}, so that uploads for that base
 * model can be checked against it (each value 1..2^20; the key/value heads divide the attention
 * heads).
 */
public record NodeModelShape(
    @Min(1) @Max(1 << 20) int hiddenSize,
    @Min(1) @Max(1 << 20) int intermediateSize,
    @Min(1) @Max(1 << 20) int layers,
    @Min(1) @Max(1 << 20) int attentionHeads,
    @Min(1) @Max(1 << 20) int keyValueHeads,
    @Min(1) @Max(1 << 20) int headDim) {

  /** As the library's shape; throws {@link IllegalArgumentException} if inconsistent. */
  public BaseModelShape toShape() {
    return new BaseModelShape(
        hiddenSize, intermediateSize, layers, attentionHeads, keyValueHeads, headDim);
  }

  /** The {@code node.model_shape} column's six values, in this record's order. */
  Integer[] columns() {
    return new Integer[] {
      hiddenSize, intermediateSize, layers, attentionHeads, keyValueHeads, headDim
    };
  }

  /** The shape stored as {@link #columns()}. */
  static BaseModelShape fromColumns(Integer[] c) {
    return new BaseModelShape(c[0], c[1], c[2], c[3], c[4], c[5]);
  }
}
