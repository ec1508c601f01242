package io.tensafe.kernels.backend;

import java.util.ArrayList;
import java.util.List;

/**
 * The operations the HE-LoRA operator needs from an accelerator, over batches of limbs. The CPU
 * backend ({@link CpuBackend}) is the reference: every other backend must produce bit-identical
 * results, which {@code HeBackendContractTest} checks.
 *
 * <p>All inputs and outputs are fully reduced residues in [0, q_k). An output batch may be the same
 * object as an input batch. Implementations are thread-safe.
 */
public interface HeBackend {

  /** A short name for logs and health checks, e.g. "cpu" or "cuda". */
  String name();

  /** Forward negacyclic NTT of every limb, in place (natural order in, bit-reversed out). */
  void forwardNttInPlace(LimbBatch batch);

  /** Inverse negacyclic NTT of every limb, in place, including the factor n^-1. */
  void inverseNttInPlace(LimbBatch batch);

  /**
   * Hosted HE-LoRA for T tokens against one site, as one unit of work: forward NTT of each token's
   * {@code m_t + e_t}; secret-key encryption {@code c0 = NTT(m_t + e_t) - c1_t·s}; for each
   * prepared plaintext {@code p}, the product {@code (c0·p, c1·p)} and its decryption {@code c0·p +
   * (c1·p)·s}; then the output coefficients of each decrypted product, by inner products or an
   * inverse NTT as {@link HostedLoraWeights#extractsOutputs()} says. A GPU backend keeps every
   * intermediate on the device.
   *
   * @param messages T coefficient-form polynomials {@code m_t + e_t}, residues in [0, q), each of
   *     the ring degree; overwritten with scratch values
   * @param c1 T NTT-form uniform polynomials (the ciphertexts' second components), residues in [0,
   *     q); not modified
   */
  HostedLoraOutput hostedLora(HostedLoraWeights weights, long[][] messages, long[][] c1);

  /**
   * {@link #hostedLora} for several sites (and so several requests) at once, outputs in call order.
   * A GPU backend runs them as one unit: one upload, one NTT launch for every token of every call
   * in the same ring, one download. This default runs the calls one after another.
   */
  default List<HostedLoraOutput> hostedLoraAll(List<HostedLoraCall> calls) {
    List<HostedLoraOutput> outputs = new ArrayList<>(calls.size());
    for (HostedLoraCall call : calls) {
      outputs.add(hostedLora(call.weights(), call.messages(), call.c1()));
    }
    return outputs;
  }
}
