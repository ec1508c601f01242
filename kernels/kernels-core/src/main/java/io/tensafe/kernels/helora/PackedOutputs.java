package io.tensafe.kernels.helora;

import io.tensafe.kernels.rlwe.AnswerPacking;

/**
 * Where round two's packed answers put B's outputs ({@link SharedLoraNode#roundTwo}): B's layout
 * has its rows {@code S} apart (S a power of two, at least the share chunk's width), row b of a
 * plaintext answering at {@code b·S + S − 1}, which the node rotates to {@code b·S}; the plaintexts
 * are packed {@code S} at a time ({@link AnswerPacking}), so an answer holds at most N outputs.
 * Both parties compute the positions from the layout alone.
 *
 * @param layout B's per-chunk layout, its dimension S a power of two
 */
public record PackedOutputs(CoefficientLayout layout) {
  public PackedOutputs {
    if (Integer.bitCount(layout.dimension()) != 1) {
      throw new IllegalArgumentException("a packed layout's rows are a power of two apart");
    }
  }

  /** S: the distance between rows, and the most plaintexts one answer packs. */
  public int spacing() {
    return layout.dimension();
  }

  /** The packed answers: ⌈plaintexts / S⌉. */
  public int answers() {
    return (layout.plaintextCount() + spacing() - 1) / spacing();
  }

  /** The first plaintext answer {@code answer} packs. */
  public int firstPlaintext(int answer) {
    return answer * spacing();
  }

  /** The plaintexts answer {@code answer} packs. */
  public int plaintexts(int answer) {
    return Math.min(spacing(), layout.plaintextCount() - firstPlaintext(answer));
  }

  /** The first output row answer {@code answer} carries. */
  public int firstRow(int answer) {
    return firstPlaintext(answer) * layout.rowsPerPlaintext();
  }

  /**
   * The coefficients of answer {@code answer}'s outputs in row order: plaintext p's row b at {@link
   * AnswerPacking#position}{@code (b, p − first, S, plaintexts)}.
   */
  public int[] positions(int answer) {
    int first = firstPlaintext(answer);
    int count = plaintexts(answer);
    int rows = layout.rowsPerPlaintext();
    int outputs = 0;
    for (int p = first; p < first + count; p++) {
      outputs += layout.outputPositions(p).length;
    }
    int[] out = new int[outputs];
    int i = 0;
    for (int p = first; p < first + count; p++) {
      int held = layout.outputPositions(p).length;
      for (int b = 0; b < held && b < rows; b++) {
        out[i++] = AnswerPacking.position(b, p - first, spacing(), count);
      }
    }
    return out;
  }

  /** The rotation that moves a plaintext's outputs from {@code b·S + S − 1} to {@code b·S}. */
  public int leafShift() {
    return 2 * layout.ringDegree() - (spacing() - 1);
  }
}
