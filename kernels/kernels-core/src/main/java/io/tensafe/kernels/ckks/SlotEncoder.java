package io.tensafe.kernels.ckks;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.rlwe.Plaintext;

/**
 * CKKS's canonical-embedding encoder for real vectors: slot {@code j} of a polynomial {@code m} is
 * {@code m(ζ^(5^j))}, {@code ζ = exp(iπ/N)}, for {@code j < N/2}; the other N/2 evaluation points
 * are the conjugates. Encoding finds the real polynomial with the given slot values (imaginary
 * parts zero), scales it by Δ and rounds; decoding evaluates it again. Both use one complex FFT of
 * size N on the "twisted" coefficients {@code m_i·ζ^i}, O(N log N).
 *
 * <p>Precision: rounding moves each coefficient by at most 1/2, and a slot value is a sum of N
 * coefficients times unit-modulus roots, so a round trip without encryption is within {@code
 * N/(2Δ)} of the input in the worst case (about {@code sqrt(N)/(2Δ)} typically), plus double
 * rounding in the FFT, about {@code log2(N)·2^-53} relative to the largest value.
 */
public final class SlotEncoder {
  private SlotEncoder() {}

  /** Number of real slots: N/2. */
  public static int slotCount(Parameters p) {
    return p.ringDegree() / 2;
  }

  /**
   * The plaintext, in NTT form over the first {@code limbs} primes, whose slots hold {@code values}
   * (the remaining slots zero).
   */
  public static Plaintext encode(double[] values, double scale, Parameters p, int limbs) {
    int n = p.ringDegree();
    if (values.length > n / 2) {
      throw new IllegalArgumentException(values.length + " values do not fit " + n / 2 + " slots");
    }
    double[] re = new double[n];
    double[] im = new double[n];
    int[] points = rotationGroupPoints(n);
    // v at odd point 2k+1 lives at FFT index k; slot j and its conjugate at 5^j and 2N - 5^j.
    for (int j = 0; j < values.length; j++) {
      if (!Double.isFinite(values[j])) {
        throw new IllegalArgumentException("value " + j + " is not finite");
      }
      re[(points[j] - 1) / 2] = values[j];
      re[(2 * n - points[j] - 1) / 2] = values[j];
    }
    // m_i = ζ^-i · (1/N) Σ_k v_k ω^(-ik), with ω = ζ^2.
    Fft.transform(re, im, true);
    double[] coefficients = new double[n];
    for (int i = 0; i < n; i++) {
      double angle = -Math.PI * i / n;
      coefficients[i] = (re[i] * Math.cos(angle) - im[i] * Math.sin(angle)) / n;
    }
    return CoefficientEncoder.encode(coefficients, scale, p, limbs);
  }

  /**
   * The N/2 real slot values of a coefficient-form plaintext (as {@link
   * io.tensafe.kernels.rlwe.Decryptor} gives).
   */
  public static double[] decode(Plaintext plaintext, Parameters p) {
    double[] coefficients = CoefficientEncoder.decode(plaintext, p);
    int n = coefficients.length;
    double[] re = new double[n];
    double[] im = new double[n];
    for (int i = 0; i < n; i++) {
      double angle = Math.PI * i / n;
      re[i] = coefficients[i] * Math.cos(angle);
      im[i] = coefficients[i] * Math.sin(angle);
    }
    // v_k = Σ_i (m_i ζ^i) ω^(ik) = m(ζ^(2k+1)).
    Fft.transform(re, im, false);
    int[] points = rotationGroupPoints(n);
    double[] slots = new double[n / 2];
    for (int j = 0; j < n / 2; j++) {
      slots[j] = re[(points[j] - 1) / 2];
    }
    return slots;
  }

  /** {@code 5^j mod 2N} for {@code j < N/2}: the odd exponents whose points hold the slots. */
  private static int[] rotationGroupPoints(int n) {
    int[] points = new int[n / 2];
    long power = 1;
    for (int j = 0; j < n / 2; j++) {
      points[j] = (int) power;
      power = power * 5 % (2L * n);
    }
    return points;
  }
}
