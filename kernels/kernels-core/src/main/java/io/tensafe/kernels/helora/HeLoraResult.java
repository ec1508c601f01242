package io.tensafe.kernels.helora;

/**
 * The products {@code A·x} for a batch of inputs.
 *
 * @param outputs {@code outputs[t][i] ≈ ⟨A_i, x_t⟩}, one row of r values per input
 * @param counts the homomorphic work done
 */
public record HeLoraResult(double[][] outputs, OperationCounts counts) {}
