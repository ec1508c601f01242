package io.tensafe.kernels.helora;

import io.tensafe.kernels.protocol.AnswerPacking;
import io.tensafe.kernels.rlwe.GaloisKeys;

/**
 * Where a round's answers carry a site's outputs (ADR 0032). The layout's plaintexts are packed
 * {@code perAnswer} at a time ({@link AnswerPacking}): with {@code perAnswer > 1} the rows are
 * {@code S} apart (S a power of two), row b of a plaintext answers at {@code b·S + S − 1}, the node
 * rotates it to {@code b·S}, and plaintext p's row b lands at {@link AnswerPacking#position}{@code
 * (b, p − first, S, packed)}; with {@code perAnswer = 1} each plaintext is its own answer, read at
 * the layout's own output coefficients. Both parties compute the positions from the layout alone.
 *
 * @param layout the round's per-chunk layout
 * @param perAnswer plaintexts per answer: 1, or a power of two at most S
 */
public record PackedOutputs(CoefficientLayout layout, int perAnswer) {
  public PackedOutputs {
    if (perAnswer < 1
        || (perAnswer > 1
            && (Integer.bitCount(layout.dimension()) != 1
                || Integer.bitCount(perAnswer) != 1
                || perAnswer > layout.dimension()))) {
      throw new IllegalArgumentException(
          "packing "
              + perAnswer
              + " plaintexts needs rows a power of two apart, at least as many: "
              + layout.dimension());
    }
  }

  /**
   * The plaintexts of {@code layout} in as few answers as its spacing and the session's Galois keys
   * allow: a packing of n' at rows S apart reaches levels {@code S/n'} apart, which the keys cover
   * down to {@code N/2^}{@link GaloisKeys#packingLevels}.
   */
  public static PackedOutputs whole(CoefficientLayout layout) {
    int slots = AnswerPacking.slots(layout.plaintextCount());
    long reach = (long) layout.dimension() << GaloisKeys.packingLevels(layout.ringDegree());
    int keyed = (int) Math.max(1, Math.min(layout.dimension(), reach / layout.ringDegree()));
    boolean powerOfTwo = Integer.bitCount(layout.dimension()) == 1;
    return new PackedOutputs(layout, powerOfTwo ? Math.min(slots, keyed) : 1);
  }

  /** S: the distance between rows. */
  public int spacing() {
    return layout.dimension();
  }

  /** The answers: ⌈plaintexts / perAnswer⌉. */
  public int answers() {
    return (layout.plaintextCount() + perAnswer - 1) / perAnswer;
  }

  /** Key switches the node runs for all answers: plaintexts − answers. */
  public int switches() {
    return layout.plaintextCount() - answers();
  }

  /** The first plaintext answer {@code answer} packs. */
  public int firstPlaintext(int answer) {
    return answer * perAnswer;
  }

  /** The plaintexts answer {@code answer} packs. */
  public int plaintexts(int answer) {
    return Math.min(perAnswer, layout.plaintextCount() - firstPlaintext(answer));
  }

  /** The first output row answer {@code answer} carries. */
  public int firstRow(int answer) {
    return firstPlaintext(answer) * layout.rowsPerPlaintext();
  }

  /** The outputs answer {@code answer} carries: its plaintexts' rows. */
  public int outputs(int answer) {
    int rows = layout.rowsPerPlaintext();
    int end = Math.min(layout.rank(), (firstPlaintext(answer) + plaintexts(answer)) * rows);
    return end - firstRow(answer);
  }

  /** The coefficients of answer {@code answer}'s outputs, in row order. */
  public int[] positions(int answer) {
    int first = firstPlaintext(answer);
    int count = plaintexts(answer);
    if (perAnswer == 1) {
      return layout.outputPositions(first);
    }
    int outputs = 0;
    for (int p = first; p < first + count; p++) {
      outputs += layout.outputPositions(p).length;
    }
    int[] out = new int[outputs];
    int i = 0;
    for (int p = first; p < first + count; p++) {
      for (int b = 0; b < layout.outputPositions(p).length; b++) {
        out[i++] = AnswerPacking.position(b, p - first, spacing(), count);
      }
    }
    return out;
  }

  /**
   * The rotation that moves a plaintext's outputs from {@code b·S + S − 1} to {@code b·S} before
   * packing; 0 when each plaintext is its own answer.
   */
  public int leafShift() {
    return perAnswer == 1 ? 0 : 2 * layout.ringDegree() - (spacing() - 1);
  }
}
