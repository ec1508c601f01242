package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateScales;
import io.tensafe.kernels.protocol.UploadSeeds;

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
  /**
   * The opening both ends bind their frame keys to ({@code FrameAuth.bind}, ADR 0037): the seed
   * key, the scales and {@code plan} (rings, then each group's sites: path, widths, rank), in a
   * fixed encoding. The seed key is fresh per session, so no two sessions share these bytes.
   */
  public byte[] opening(SitePlan plan) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
    try {
      out.writeUTF("tensafe opening v1");
      out.write(seeds.key());
      out.writeDouble(scales.clipNorm());
      out.writeDouble(scales.aBound());
      out.writeDouble(scales.bBound());
      out.writeInt(plan.rings().size());
      for (int ring : plan.rings()) {
        out.writeInt(ring);
      }
      out.writeInt(plan.groups().size());
      for (SitePlan.Group g : plan.groups()) {
        out.writeInt(g.sites().size());
        for (SitePlan.Site site : g.sites()) {
          out.writeUTF(site.path());
          out.writeInt(site.inputWidth());
          out.writeInt(site.outputWidth());
          out.writeInt(site.rank());
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("a byte array does not fail", e);
    }
    return bytes.toByteArray();
  }

  /**
   * The c1 seeds of the {@code count} uploads from {@code from} of frame {@code sequence}, whose
   * nonce is {@code nonce}, in ring {@code logN}.
   */
  public java.util.List<byte[]> seeds(int logN, byte[] nonce, long sequence, int from, int count) {
    return java.util.stream.IntStream.range(from, from + count)
        .mapToObj(i -> seeds.seed(logN, nonce, sequence, i))
        .toList();
  }
}
