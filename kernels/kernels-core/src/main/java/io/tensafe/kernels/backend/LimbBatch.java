package io.tensafe.kernels.backend;

import io.tensafe.kernels.ring.NegacyclicNtt;
import java.util.List;

/**
 * A batch of single-limb polynomials for one backend call: limb {@code k} has {@code
 * tables.get(k).degree()} residues modulo {@code tables.get(k).modulus()}. Limbs of many
 * ciphertexts, sites and requests, under different primes and even ring degrees, can share one
 * batch, which is what lets a GPU backend fill a launch.
 *
 * <p>Invariants: equal sizes of {@code tables} and {@code limbs}; each limb's length is its ring
 * degree; residues in [0, q_k) on input and output unless a method says otherwise. The arrays are
 * the caller's; backends write results into them and keep no reference after returning.
 *
 * @param tables per-limb NTT tables (and so moduli)
 * @param limbs per-limb residues
 */
public record LimbBatch(List<NegacyclicNtt> tables, long[][] limbs) {
  public LimbBatch {
    tables = List.copyOf(tables);
    if (tables.size() != limbs.length) {
      throw new IllegalArgumentException(tables.size() + " tables for " + limbs.length + " limbs");
    }
    for (int k = 0; k < limbs.length; k++) {
      if (limbs[k].length != tables.get(k).degree()) {
        throw new IllegalArgumentException(
            "limb "
                + k
                + " has "
                + limbs[k].length
                + " residues, its ring has "
                + tables.get(k).degree());
      }
    }
  }

  /** Number of limbs. */
  public int size() {
    return limbs.length;
  }
}
