package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The wire form of {@link GaloisKeys}: the header ({@link EncodingHeader.Type#GALOIS_KEYS}), a
 * count byte, then per element, ascending: the element (4 bytes), the 32-byte seed of its {@code
 * a_t}, and {@code b_t} for each digit as packed residues (54 bits each at the private rings). The
 * reader checks the count against the ring's {@code log N} and the exact length before it allocates
 * the keys, and every residue against its prime.
 */
public final class GaloisKeysCodec {
  private GaloisKeysCodec() {}

  /** Bytes of one element's key in ring {@code p}. */
  public static long bytesPerElement(Parameters p) {
    return 4 + Samplers.SEED_BYTES + GaloisKeys.DIGITS * RlweCodec.packedBytes(p, 2);
  }

  /** The encoding of {@code keys}' public parts. */
  public static byte[] toBytes(GaloisKeys keys) {
    Parameters p = keys.parameters();
    int count = keys.elements().size();
    ByteBuffer out =
        ByteBuffer.allocate(Math.toIntExact(EncodingHeader.SIZE + 1 + count * bytesPerElement(p)));
    new EncodingHeader(EncodingHeader.Type.GALOIS_KEYS, 0, p.fingerprint()).writeTo(out);
    out.put((byte) count);
    for (int k : keys.elements()) {
      GaloisKeys.SwitchKey key = keys.key(k);
      out.putInt(k);
      out.put(key.seed());
      for (int t = 0; t < GaloisKeys.DIGITS; t++) {
        RlweCodec.putPacked(out, p, RnsPoly.wrap(key.b()[t], true));
      }
    }
    return out.array();
  }

  /**
   * Reads keys for ring {@code p}.
   *
   * @throws MalformedEncodingException if the header, the count, the length, an element (they are
   *     exactly {@link GaloisKeys#packingElements}, in order) or a residue does not fit
   */
  public static GaloisKeys fromBytes(byte[] bytes, Parameters p) throws MalformedEncodingException {
    if (p.limbCount() != 2) {
      throw new MalformedEncodingException("Galois keys are for two-prime rings");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    EncodingHeader.read(in, EncodingHeader.Type.GALOIS_KEYS, 0, p.fingerprint());
    if (!in.hasRemaining()) {
      throw new MalformedEncodingException("Galois keys need a count");
    }
    int count = Byte.toUnsignedInt(in.get());
    List<Integer> expected = GaloisKeys.packingElements(p);
    if (count != expected.size()) {
      throw new MalformedEncodingException(
          "Galois keys hold the "
              + expected.size()
              + " packing elements "
              + expected
              + ", not "
              + count);
    }
    long length = count * bytesPerElement(p);
    if (in.remaining() != length) {
      throw new MalformedEncodingException(
          "Galois keys must be exactly "
              + length
              + " bytes after the count, input has "
              + in.remaining());
    }
    Map<Integer, long[][][]> bs = new TreeMap<>();
    Map<Integer, byte[]> seeds = new TreeMap<>();
    for (int e = 0; e < count; e++) {
      int k = in.getInt();
      if (k != expected.get(e)) {
        throw new MalformedEncodingException(
            "element " + e + " is " + k + ", not " + expected.get(e));
      }
      byte[] seed = new byte[Samplers.SEED_BYTES];
      in.get(seed);
      long[][][] b = new long[GaloisKeys.DIGITS][2][];
      for (int t = 0; t < GaloisKeys.DIGITS; t++) {
        for (int l = 0; l < 2; l++) {
          b[t][l] =
              RlweCodec.readResidues(
                  in, p.moduli().get(l), p.ringDegree(), "key " + k + " digit " + t);
        }
      }
      bs.put(k, b);
      seeds.put(k, seed);
    }
    return GaloisKeys.fromPublicParts(p, bs, seeds);
  }
}
