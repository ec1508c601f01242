package io.tensafe.kernels.params;

/**
 * The largest total modulus, in bits, that keeps RLWE with a ternary (uniform in {-1, 0, 1}) secret
 * and error of standard deviation 3.2 at 128-bit classical security, per ring degree.
 *
 * <p>Source: the Homomorphic Encryption Security Standard (Albrecht et al.,
 * HomomorphicEncryption.org, 2018), Table 1 for the ternary secret distribution at λ = 128: log Q ≤
 * 54, 109, 218, 438, 881, 1770 for N = 2^11 … 2^16. "Total modulus" counts every prime a key or
 * ciphertext is ever taken modulo, including any special primes.
 */
public final class SecurityTable {
  private static final int[] MAX_LOG_Q_128 = {54, 109, 218, 438, 881, 1770};

  private SecurityTable() {}

  /**
   * The largest log2 Q at 128-bit security for ring degree {@code 2^logN}.
   *
   * @param logN in [11, 16]
   */
  public static int maxLogQ128(int logN) {
    if (logN < Parameters.MIN_LOG_N || logN > Parameters.MAX_LOG_N) {
      throw new IllegalArgumentException(
          "logN must be in ["
              + Parameters.MIN_LOG_N
              + ", "
              + Parameters.MAX_LOG_N
              + "], was "
              + logN);
    }
    return MAX_LOG_Q_128[logN - Parameters.MIN_LOG_N];
  }
}
