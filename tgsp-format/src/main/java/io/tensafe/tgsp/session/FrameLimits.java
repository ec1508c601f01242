package io.tensafe.tgsp.session;

/**
 * What a reader of untrusted frames accepts, checked before anything is allocated.
 *
 * @param maxFrameBytes the whole frame, header included; at least {@link SessionFrame#HEADER_BYTES}
 * @param maxCiphertexts ciphertexts in one frame, in [1, 65535]
 * @param maxCiphertextBytes one ciphertext's encoding, ≥ 1
 */
public record FrameLimits(int maxFrameBytes, int maxCiphertexts, int maxCiphertextBytes) {
  public FrameLimits {
    if (maxFrameBytes < SessionFrame.HEADER_BYTES
        || maxCiphertexts < 1
        || maxCiphertexts > 0xFFFF
        || maxCiphertextBytes < 1) {
      throw new IllegalArgumentException("frame limits out of range");
    }
  }
}
