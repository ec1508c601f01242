package io.tensafe.kernels.helora;

/**
 * A packing with the input split into chunks (round one's x, round two's shares): x's {@code d}
 * values go in {@code c} ciphertexts of {@code w = ⌈d/c⌉} values each (the last zero-padded), and
 * each plaintext of A holds, per chunk, the same rows' slices in {@link CoefficientLayout} order
 * for rows at least w apart. Summing the chunks' products gives every row's full inner product at
 * its output coefficient, so one product carries about {@code N/w} rows instead of {@code N/d}: c
 * ciphertexts more from the client, about c times fewer products on the node (Cheetah's split of a
 * matrix-vector product, Huang et al., USENIX Security 2022). {@link PrivatePacking} chooses c.
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
}
