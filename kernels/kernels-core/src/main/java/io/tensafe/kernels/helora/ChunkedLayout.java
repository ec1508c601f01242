package io.tensafe.kernels.helora;

/**
 * A packing with the input split into chunks (round one's x, round two's shares): x's {@code d}
 * values go in {@code c} ciphertexts of {@code w = ⌈d/c⌉} values each (the last zero-padded), and
 * each plaintext of A holds, per chunk, the same rows' slices in {@link CoefficientLayout} order
 * for width w. Summing the chunks' products gives every row's full inner product at its output
 * coefficient, so one answer carries {@code ⌊N/w⌋} rows instead of {@code ⌊N/d⌋}: c ciphertexts
 * more from the client, about c times fewer answers from the node (Cheetah's split of a
 * matrix-vector product, Huang et al., USENIX Security 2022).
 *
 * @param dimension d, in [1, N]
 * @param chunks c, in [1, min(d, {@link #MAX_CHUNKS})]
 * @param rank the rows, at least 1
 * @param ringDegree N
 */
public record ChunkedLayout(int dimension, int chunks, int rank, int ringDegree) {
  /** The most chunks an input may be split into. */
  public static final int MAX_CHUNKS = 16;

  public ChunkedLayout {
    if (dimension < 1 || dimension > ringDegree) {
      throw new IllegalArgumentException("dimension must be in [1, " + ringDegree + "]");
    }
    if (chunks < 1 || chunks > Math.min(dimension, MAX_CHUNKS)) {
      throw new IllegalArgumentException(
          "chunks must be in [1, " + Math.min(dimension, MAX_CHUNKS) + "], was " + chunks);
    }
    if (rank < 1) {
      throw new IllegalArgumentException("rank must be >= 1, was " + rank);
    }
  }

  /** w: the values of x in one chunk. */
  public int chunkWidth() {
    return (dimension + chunks - 1) / chunks;
  }

  /** The layout every chunk's plaintexts follow, and where the outputs are. */
  public CoefficientLayout perChunk() {
    return new CoefficientLayout(chunkWidth(), rank, ringDegree);
  }

  /** Answers per input: one per plaintext of {@link #perChunk()}. */
  public int plaintextCount() {
    return perChunk().plaintextCount();
  }

  /**
   * The chunk count that sends the fewest bytes both ways for one input read by sites of these
   * ranks (their output counts): {@code c·inputBytes + Σ_s ⌈r_s / ⌊N/⌈d/c⌉⌋⌉·answerBytes}, the
   * fewest chunks on a tie.
   *
   * @param inputBytes the size of one input ciphertext
   * @param answerBytes the size of one answer
   */
  public static int cheapest(
      int dimension, int[] ranks, int ringDegree, long inputBytes, long answerBytes) {
    int best = 1;
    long bestBytes = Long.MAX_VALUE;
    for (int c = 1; c <= Math.min(dimension, MAX_CHUNKS); c++) {
      int rows = ringDegree / ((dimension + c - 1) / c);
      long bytes = c * inputBytes;
      for (int r : ranks) {
        bytes += (long) ((r + rows - 1) / rows) * answerBytes;
      }
      if (bytes < bestBytes) {
        best = c;
        bestBytes = bytes;
      }
    }
    return best;
  }
}
