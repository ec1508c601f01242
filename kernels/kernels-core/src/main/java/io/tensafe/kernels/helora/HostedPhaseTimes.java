package io.tensafe.kernels.helora;

/**
 * Where a hosted HE-LoRA operator's time went, summed over its calls, in nanoseconds of wall time
 * (benchmarks and node statistics). All values ≥ 0.
 *
 * @param encodeSampleNanos encoding inputs and sampling encryption randomness (error and c1), on
 *     the CPU threads
 * @param backendNanos the backend's fused unit: encryption's NTT and {@code c0}, the ct×pt
 *     products, decryption and extraction (the CPU backend splits it further, see {@code
 *     CpuBackend#hostedPhaseTimes})
 * @param decodeNanos turning decrypted residues into values
 */
public record HostedPhaseTimes(long encodeSampleNanos, long backendNanos, long decodeNanos) {
  /** Componentwise sum. */
  public HostedPhaseTimes plus(HostedPhaseTimes o) {
    return new HostedPhaseTimes(
        encodeSampleNanos + o.encodeSampleNanos,
        backendNanos + o.backendNanos,
        decodeNanos + o.decodeNanos);
  }
}
