package io.tensafe.marketplace.fleet;

import io.tensafe.tgsp.peft.ExpertShape;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.stream.Stream;

/**
 * The experts of a mixture-of-experts model a node serves, from its {@code config.json} (each count
 * 1..2^20, experts per token at most the experts; layers from 0).
 */
public record NodeExpertShape(
    @Min(1) @Max(1 << 20) int experts,
    @Min(1) @Max(1 << 20) int expertsPerToken,
    @Min(1) @Max(1 << 20) int intermediateSize,
    @Min(1) @Max(1 << 20) int sparseStep,
    @NotNull @Size(max = 1024) List<@NotNull @Min(0) @Max(1 << 20) Integer> mlpOnlyLayers) {

  /** As the library's shape; throws {@link IllegalArgumentException} if inconsistent. */
  public ExpertShape toShape() {
    return new ExpertShape(experts, expertsPerToken, intermediateSize, sparseStep, mlpOnlyLayers);
  }

  /** The {@code node.model_experts} column: the four counts, then the dense layers. */
  Integer[] columns() {
    return Stream.concat(
            Stream.of(experts, expertsPerToken, intermediateSize, sparseStep),
            mlpOnlyLayers.stream())
        .toArray(Integer[]::new);
  }

  /** The shape stored as {@link #columns()}. */
  static ExpertShape fromColumns(Integer[] c) {
    return new ExpertShape(c[0], c[1], c[2], c[3], List.of(c).subList(4, c.length));
  }
}
