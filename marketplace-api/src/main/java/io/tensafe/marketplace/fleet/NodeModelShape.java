package io.tensafe.marketplace.fleet;

import io.tensafe.tgsp.peft.BaseModelShape;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * The shape of the model a node serves, from its {@code config.json}, so that uploads for that base
 * model can be checked against it (each value 1..2^20; the key/value heads divide the attention
 * heads), with its experts when it is a mixture-of-experts model (null for a dense one).
 */
public record NodeModelShape(
    @Min(1) @Max(1 << 20) int hiddenSize,
    @Min(1) @Max(1 << 20) int intermediateSize,
    @Min(1) @Max(1 << 20) int layers,
    @Min(1) @Max(1 << 20) int attentionHeads,
    @Min(1) @Max(1 << 20) int keyValueHeads,
    @Min(1) @Max(1 << 20) int headDim,
    @jakarta.validation.Valid NodeExpertShape experts) {

  /** As the library's shape; throws {@link IllegalArgumentException} if inconsistent. */
  public BaseModelShape toShape() {
    return new BaseModelShape(
        hiddenSize,
        intermediateSize,
        layers,
        attentionHeads,
        keyValueHeads,
        headDim,
        experts == null ? null : experts.toShape());
  }

  /** The {@code node.model_shape} column's six values, in this record's order. */
  Integer[] columns() {
    return new Integer[] {
      hiddenSize, intermediateSize, layers, attentionHeads, keyValueHeads, headDim
    };
  }

  /** The shape stored as {@link #columns()} and {@link NodeExpertShape#columns()} (or null). */
  static BaseModelShape fromColumns(Integer[] c, Integer[] experts) {
    return new BaseModelShape(
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
        experts == null ? null : NodeExpertShape.fromColumns(experts));
  }
}
