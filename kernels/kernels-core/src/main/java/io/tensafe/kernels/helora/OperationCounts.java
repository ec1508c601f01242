package io.tensafe.kernels.helora;

/**
 * What one {@link HeLoraOperator#apply} call did, for node statistics and benchmarks. All counts
 * are totals over the batch and are at least 0.
 *
 * @param encryptions input vectors encrypted
 * @param plaintextProducts ct×pt products
 * @param decryptions product ciphertexts decrypted
 * @param forwardNtts single-limb forward NTTs
 * @param inverseNtts single-limb inverse NTTs
 * @param coefficientExtractions output coefficients read by an O(N) inner product instead of an
 *     inverse NTT
 */
public record OperationCounts(
    long encryptions,
    long plaintextProducts,
    long decryptions,
    long forwardNtts,
    long inverseNtts,
    long coefficientExtractions) {}
