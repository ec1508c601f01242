package io.tensafe.kernels.params;

/**
 * Serialized kernels data (parameters, keys, ciphertexts) was refused. It is the only exception the
 * readers throw for bad bytes: never an index, arithmetic or out-of-memory error. The message names
 * the field, the value and the limit.
 */
public final class MalformedEncodingException extends Exception {
  public MalformedEncodingException(String message) {
    super(message);
  }
}
