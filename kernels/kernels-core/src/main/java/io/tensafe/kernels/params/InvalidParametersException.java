package io.tensafe.kernels.params;

/**
 * A parameter spec was refused. {@link #reason()} names the rule; the message names the field, the
 * value and the limit.
 */
public final class InvalidParametersException extends Exception {

  /** Every rule a {@link ParameterSpec} can break. */
  public enum Reason {
    /** {@code logN} is outside [{@link Parameters#MIN_LOG_N}, {@link Parameters#MAX_LOG_N}]. */
    RING_DEGREE_OUT_OF_RANGE,
    /** The modulus chain is empty or longer than {@link Parameters#MAX_PRIMES}. */
    PRIME_COUNT_OUT_OF_RANGE,
    /** A prime's bit length is outside [{@link Parameters#MIN_PRIME_BITS}, 60]. */
    PRIME_BITS_OUT_OF_RANGE,
    /** Fewer primes of a requested size with {@code q ≡ 1 mod 2N} exist than were asked for. */
    NOT_ENOUGH_PRIMES,
    /** The scale is not below the first prime, or not positive. */
    SCALE_OUT_OF_RANGE,
    /** log2 Q exceeds the HE Standard's 128-bit bound for this ring degree. */
    INSECURE
  }

  private final Reason reason;

  public InvalidParametersException(Reason reason, String message) {
    super(reason + ": " + message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
