package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateScales;
import io.tensafe.kernels.rlwe.UploadSeeds;

/**
 * What a private session fixes when it opens and both halves use for every frame (ADR 0025), all
 * public: the scales (from the policy's clip norm C and the signed weight bounds) and the node's
 * key the uploads' c1 seeds come from. Nothing a frame carries besides ciphertext bodies depends on
 * the client's text: every scale, size and count follows from these and the plan.
 *
 * @param scales the session's fixed scales
 * @param seeds the node's upload seeds for this session (its key goes to the client)
 */
public record SessionTerms(PrivateScales scales, UploadSeeds seeds) {
  /** The c1 seeds of the {@code count} uploads of frame {@code sequence} in ring {@code logN}. */
  public java.util.List<byte[]> seeds(int logN, long sequence, int from, int count) {
    return java.util.stream.IntStream.range(from, from + count)
        .mapToObj(i -> seeds.seed(logN, sequence, i))
        .toList();
  }
}
