package io.tensafe.kernels.params;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializes parameter sets: header, then logN (u8), logScale (u8), prime count (u8) and each prime
 * (u64). Reading rebuilds the set from its spec and requires the same primes and fingerprint, so
 * only parameters this library would generate are ever accepted; an insecure set is refused like
 * any other.
 */
public final class ParametersCodec {
  private ParametersCodec() {}

  public static byte[] toBytes(Parameters p) {
    ByteBuffer out = ByteBuffer.allocate(EncodingHeader.SIZE + 3 + 8 * p.limbCount());
    new EncodingHeader(EncodingHeader.Type.PARAMETERS, 0, p.fingerprint()).writeTo(out);
    out.put((byte) p.logN()).put((byte) p.spec().logScale()).put((byte) p.limbCount());
    p.moduli().forEach(q -> out.putLong(q.value()));
    return out.array();
  }

  public static Parameters fromBytes(byte[] bytes) throws MalformedEncodingException {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    EncodingHeader header = EncodingHeader.read(in, EncodingHeader.Type.PARAMETERS, 0, null);
    if (in.remaining() < 3) {
      throw new MalformedEncodingException("parameters body needs 3 bytes, has " + in.remaining());
    }
    int logN = Byte.toUnsignedInt(in.get());
    int logScale = Byte.toUnsignedInt(in.get());
    int count = Byte.toUnsignedInt(in.get());
    if (count < 1 || count > Parameters.MAX_PRIMES) {
      throw new MalformedEncodingException(
          "prime count is " + count + ", must be 1 to " + Parameters.MAX_PRIMES);
    }
    if (in.remaining() != 8L * count) {
      throw new MalformedEncodingException(
          count + " primes need " + 8 * count + " bytes, input has " + in.remaining());
    }
    List<Integer> bits = new ArrayList<>(count);
    List<Long> primes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long q = in.getLong();
      primes.add(q);
      bits.add(64 - Long.numberOfLeadingZeros(q));
    }
    Parameters p;
    try {
      p = Parameters.of(new ParameterSpec(logN, bits, logScale));
    } catch (InvalidParametersException e) {
      throw new MalformedEncodingException("parameters are invalid: " + e.getMessage());
    }
    for (int i = 0; i < count; i++) {
      if (p.moduli().get(i).value() != primes.get(i)) {
        throw new MalformedEncodingException(
            "prime "
                + i
                + " is "
                + primes.get(i)
                + ", the generated chain has "
                + p.moduli().get(i).value());
      }
    }
    if (!p.fingerprint().equals(header.fingerprint())) {
      throw new MalformedEncodingException(
          "fingerprint is " + header.fingerprint() + ", the parameters give " + p.fingerprint());
    }
    return p;
  }
}
