package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.rlwe.ResidueBits;
import io.tensafe.kernels.rlwe.RlweCodec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Serializes private mode's answers behind an {@link EncodingHeader}. Bodies, big-endian:
 *
 * <ul>
 *   <li>{@link ShareAnswer}: output count (u16), scale (f64), c1 (both limbs, N residues each at
 *       its prime's bit length, each limb zero-padded to a byte), then c0 (both limbs, count
 *       residues each), each run zero-padded to a byte.
 *   <li>{@link SwitchedAnswer}: bits (u8), output count (u16), scale (f64), c1 (N values of bits
 *       bits), then c0 (count values), each run zero-padded to a byte.
 * </ul>
 *
 * <p>Readers take the output count the caller's layout expects, compute the exact length from it
 * and the header before allocating, refuse trailing bytes and check every value is in range. Every
 * failure is a {@link MalformedEncodingException}.
 */
public final class AnswerCodec {
  private static final int SHARE_FIELDS = 2 + 8;
  private static final int SWITCHED_FIELDS = 1 + 2 + 8;

  private AnswerCodec() {}

  /** The encoded size of a share answer with {@code outputs} outputs under {@code p}. */
  public static long shareBytes(Parameters p, int outputs) {
    long bytes = EncodingHeader.SIZE + SHARE_FIELDS;
    for (int l = 0; l < 2; l++) {
      int bits = p.moduli().get(l).bitLength();
      bytes += ResidueBits.bytesFor(p.ringDegree(), bits) + ResidueBits.bytesFor(outputs, bits);
    }
    return bytes;
  }

  /** The encoded size of a switched answer with {@code outputs} outputs under {@code p}. */
  public static long switchedBytes(Parameters p, int outputs) {
    int bits = MaskedAnswers.switchBits(p);
    return EncodingHeader.SIZE
        + SWITCHED_FIELDS
        + ResidueBits.bytesFor(p.ringDegree(), bits)
        + ResidueBits.bytesFor(outputs, bits);
  }

  public static byte[] toBytes(ShareAnswer a) {
    Parameters p = a.parameters();
    ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(shareBytes(p, a.outputs())));
    new EncodingHeader(EncodingHeader.Type.SHARE_ANSWER, 0, p.fingerprint()).writeTo(out);
    out.putShort((short) a.outputs()).putDouble(a.scale());
    for (int l = 0; l < 2; l++) {
      ResidueBits.Writer c1 = new ResidueBits.Writer(out);
      int bits = p.moduli().get(l).bitLength();
      for (int k = 0; k < p.ringDegree(); k++) {
        c1.put(a.c1(l, k), bits);
      }
      c1.finish();
    }
    for (int l = 0; l < 2; l++) {
      ResidueBits.Writer w = new ResidueBits.Writer(out);
      int bits = p.moduli().get(l).bitLength();
      for (int i = 0; i < a.outputs(); i++) {
        w.put(a.c0(l, i), bits);
      }
      w.finish();
    }
    return out.array();
  }

  public static ShareAnswer shareFromBytes(byte[] bytes, Parameters p, int outputs)
      throws MalformedEncodingException {
    ByteBuffer in = body(bytes, p, EncodingHeader.Type.SHARE_ANSWER, shareBytes(p, outputs));
    requireOutputs(Short.toUnsignedInt(in.getShort()), outputs);
    double scale = scale(in.getDouble());
    long[][] c1 = new long[2][];
    for (int l = 0; l < 2; l++) {
      c1[l] = RlweCodec.readResidues(in, p.moduli().get(l), p.ringDegree(), "c1 limb " + l);
    }
    long[][] c0 = new long[2][];
    for (int l = 0; l < 2; l++) {
      c0[l] = RlweCodec.readResidues(in, p.moduli().get(l), outputs, "c0 limb " + l);
    }
    return new ShareAnswer(p, c1, c0, scale);
  }

  public static byte[] toBytes(SwitchedAnswer a) {
    Parameters p = a.parameters();
    ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(switchedBytes(p, a.outputs())));
    new EncodingHeader(EncodingHeader.Type.SWITCHED_ANSWER, 0, p.fingerprint()).writeTo(out);
    out.put((byte) a.bits()).putShort((short) a.outputs()).putDouble(a.scale());
    ResidueBits.Writer w = new ResidueBits.Writer(out);
    for (long v : a.c1()) {
      w.put(v, a.bits());
    }
    w.finish();
    for (int i = 0; i < a.outputs(); i++) {
      w.put(a.c0(i), a.bits());
    }
    w.finish();
    return out.array();
  }

  public static SwitchedAnswer switchedFromBytes(byte[] bytes, Parameters p, int outputs)
      throws MalformedEncodingException {
    ByteBuffer in = body(bytes, p, EncodingHeader.Type.SWITCHED_ANSWER, switchedBytes(p, outputs));
    int bits = Byte.toUnsignedInt(in.get());
    if (bits != MaskedAnswers.switchBits(p)) {
      throw new MalformedEncodingException(
          "a switched answer of this ring has "
              + MaskedAnswers.switchBits(p)
              + " bits, not "
              + bits);
    }
    requireOutputs(Short.toUnsignedInt(in.getShort()), outputs);
    double scale = scale(in.getDouble());
    ResidueBits.Reader r = new ResidueBits.Reader(in, (long) p.ringDegree() * bits);
    long[] c1 = new long[p.ringDegree()];
    for (int k = 0; k < c1.length; k++) {
      c1[k] = r.get(bits);
    }
    r.finish();
    r = new ResidueBits.Reader(in, (long) outputs * bits);
    long[] c0 = new long[outputs];
    for (int i = 0; i < outputs; i++) {
      c0[i] = r.get(bits);
    }
    r.finish();
    return new SwitchedAnswer(p, bits, c1, c0, scale);
  }

  private static ByteBuffer body(byte[] bytes, Parameters p, EncodingHeader.Type type, long size)
      throws MalformedEncodingException {
    if (bytes.length != size) {
      throw new MalformedEncodingException(
          type + " must be exactly " + size + " bytes for this layout, input has " + bytes.length);
    }
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    EncodingHeader.read(in, type, 0, p.fingerprint());
    return in;
  }

  private static void requireOutputs(int declared, int expected) throws MalformedEncodingException {
    if (declared != expected) {
      throw new MalformedEncodingException(
          "the answer declares " + declared + " outputs, the layout has " + expected);
    }
  }

  private static double scale(double scale) throws MalformedEncodingException {
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new MalformedEncodingException("scale is " + scale + ", must be positive and finite");
    }
    return scale;
  }
}
