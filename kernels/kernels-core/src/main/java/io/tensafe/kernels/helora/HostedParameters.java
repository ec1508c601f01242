package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.InvalidParametersException;
import io.tensafe.kernels.params.ParameterPresets;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import java.util.List;

/** One-prime parameter sets for hosted mode, shared by both packings. */
final class HostedParameters {
  private HostedParameters() {}

  /**
   * The one-prime set for ring degree 2^logN, as wide as the HE Standard allows there and at most
   * 60 bits: 50 bits at N = 2^11 ({@link ParameterPresets#HOSTED_LORA}, exact on FMA lanes, ADR
   * 0033), 60 bits above. The spec's scale is unused: hosted operators derive their scales from the
   * data.
   */
  static Parameters forLogN(int logN) {
    ParameterSpec spec =
        logN == Parameters.MIN_LOG_N
            ? ParameterPresets.HOSTED_LORA
            : new ParameterSpec(logN, List.of(60), 23);
    try {
      return Parameters.of(spec);
    } catch (InvalidParametersException e) {
      throw new IllegalStateException("built-in hosted parameters must be valid: " + spec, e);
    }
  }
}
