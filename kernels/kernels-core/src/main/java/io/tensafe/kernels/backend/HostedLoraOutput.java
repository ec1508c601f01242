package io.tensafe.kernels.backend;

/**
 * What {@link HeBackend#hostedLora} returns.
 *
 * @param residues {@code residues[t][p·B + b]}: output {@code b} of plaintext {@code p} for token
 *     {@code t}, the decrypted coefficient in [0, q)
 * @param inverseNtts inverse NTTs run to read outputs (0 when they were extracted)
 * @param extractions outputs read by O(n) inner products
 */
public record HostedLoraOutput(long[][] residues, long inverseNtts, long extractions) {}
