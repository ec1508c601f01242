package io.tensafe.kernels.params;

import java.util.List;

/**
 * Unchecked parameter literals: what a caller asks for. Turn one into {@link Parameters} with
 * {@link Parameters#of(ParameterSpec)}, which validates it and refuses insecure sets.
 *
 * @param logN log2 of the ring degree N
 * @param primeBits bit length of each RNS prime of the modulus chain, first (bottom) prime first
 * @param logScale log2 of the default encoding scale Δ
 */
public record ParameterSpec(int logN, List<Integer> primeBits, int logScale) {
  public ParameterSpec {
    primeBits = List.copyOf(primeBits);
  }
}
