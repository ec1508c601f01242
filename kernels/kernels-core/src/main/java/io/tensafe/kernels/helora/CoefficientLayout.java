package io.tensafe.kernels.helora;

/**
 * Where COEFFICIENT packing puts things. The input {@code x} becomes {@code x(X) = Σ_j x_j X^j}.
 * Row {@code i} of A goes, reversed, into block {@code b = i mod B} of plaintext {@code i / B}:
 * {@code a(X) = Σ_j A_ij X^(b·d + d-1-j)}. In the negacyclic product, coefficient {@code b·d + d-1}
 * collects exactly {@code Σ_j A_ij x_j}: other terms land there only if {@code k - j} is a nonzero
 * multiple of d, or, after wrapping past {@code X^N}, if {@code k - j ≥ N - (B-1)·d ≥ d}; both are
 * impossible for indices below d.
 *
 * @param dimension d, in [1, ringDegree]
 * @param rank r, at least 1
 * @param ringDegree N
 */
public record CoefficientLayout(int dimension, int rank, int ringDegree) {
  public CoefficientLayout {
    if (dimension < 1 || dimension > ringDegree) {
      throw new IllegalArgumentException(
          "dimension must be in [1, " + ringDegree + "] for this ring, was " + dimension);
    }
    if (rank < 1) {
      throw new IllegalArgumentException("rank must be >= 1, was " + rank);
    }
  }

  /** B: rows packed into one plaintext. Range: [1, N]. */
  public int rowsPerPlaintext() {
    return ringDegree / dimension;
  }

  /** Plaintexts needed for all r rows. */
  public int plaintextCount() {
    return (rank + rowsPerPlaintext() - 1) / rowsPerPlaintext();
  }

  /** Coefficient holding the output of block {@code block}. */
  public int outputCoefficient(int block) {
    return block * dimension + dimension - 1;
  }

  /** Coefficient where row-block {@code block}'s entry for input index {@code j} goes. */
  public int weightCoefficient(int block, int j) {
    return block * dimension + dimension - 1 - j;
  }

  /** The output coefficients of plaintext {@code plaintext}, one per row it holds, in row order. */
  public int[] outputPositions(int plaintext) {
    if (plaintext < 0 || plaintext >= plaintextCount()) {
      throw new IllegalArgumentException("plaintext " + plaintext + " of " + plaintextCount());
    }
    int rows = Math.min(rowsPerPlaintext(), rank - plaintext * rowsPerPlaintext());
    int[] positions = new int[rows];
    for (int b = 0; b < rows; b++) {
      positions[b] = outputCoefficient(b);
    }
    return positions;
  }
}
