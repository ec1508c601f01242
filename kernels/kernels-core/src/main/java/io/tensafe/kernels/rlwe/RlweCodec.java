package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Serializes ciphertexts and keys behind an {@link EncodingHeader} carrying the parameter
 * fingerprint. Bodies, big-endian:
 *
 * <ul>
 *   <li>Ciphertext (flag bit 0: c1 is a seed; flag bit 1: residues packed): limb count (u8), scale
 *       (IEEE-754 f64), c0 as limbs × N residues, then c1 as a 32-byte seed or limbs × N residues.
 *       Packed residues take their prime's bit length each ({@link ResidueBits}), limb after limb,
 *       each polynomial's last byte zero-padded; unpacked ones (older writers) a u64 each. Writers
 *       always pack.
 *   <li>Private-mode upload (flags: packed, bit 2: c1 derived from the session, ADR 0025): limb
 *       count, scale and c0 as above, no c1 at all: the reader expands c1 from the seed the session
 *       binds it to ({@code protocol.UploadSeeds}) and refuses any other flags, limb count, scale
 *       or size.
 *   <li>Public key: the 32-byte seed of {@code a}, then {@code b} over every prime.
 *   <li>Secret key: N ternary coefficients, 2 bits each (00 = 0, 01 = 1, 10 = -1), N/4 bytes. Only
 *       the key's owner should ever hold these bytes.
 * </ul>
 *
 * <p>Readers compute the exact length the header and counts imply and compare it with the input
 * before allocating anything, refuse trailing bytes, and check every residue is below its prime.
 * Every failure is a {@link MalformedEncodingException}.
 */
public final class RlweCodec {
  private static final int SEEDED_C1 = 1;
  private static final int PACKED = 2;
  private static final int DERIVED_C1 = 4;

  private RlweCodec() {}

  public static byte[] toBytes(Ciphertext ct) {
    Parameters p = ct.parameters();
    boolean seeded = ct.c1Seed().isPresent();
    long polyBytes = packedBytes(p, ct.limbCount());
    long size = EncodingHeader.SIZE + 9 + polyBytes + (seeded ? Samplers.SEED_BYTES : polyBytes);
    ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(size)).order(ByteOrder.BIG_ENDIAN);
    new EncodingHeader(
            EncodingHeader.Type.CIPHERTEXT, PACKED | (seeded ? SEEDED_C1 : 0), p.fingerprint())
        .writeTo(out);
    out.put((byte) ct.limbCount()).putDouble(ct.scale());
    putPacked(out, p, ct.c0());
    if (seeded) {
      out.put(ct.c1Seed().orElseThrow());
    } else {
      putPacked(out, p, ct.c1());
    }
    return out.array();
  }

  public static Ciphertext ciphertextFromBytes(byte[] bytes, Parameters p)
      throws MalformedEncodingException {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    EncodingHeader header =
        EncodingHeader.read(
            in, EncodingHeader.Type.CIPHERTEXT, SEEDED_C1 | PACKED, p.fingerprint());
    boolean seeded = (header.flags() & SEEDED_C1) != 0;
    boolean packed = (header.flags() & PACKED) != 0;
    if (in.remaining() < 9) {
      throw new MalformedEncodingException("ciphertext body needs 9 bytes, has " + in.remaining());
    }
    int limbs = Byte.toUnsignedInt(in.get());
    if (limbs < 1 || limbs > p.limbCount()) {
      throw new MalformedEncodingException(
          "limb count is " + limbs + ", must be 1 to " + p.limbCount());
    }
    double scale = in.getDouble();
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new MalformedEncodingException("scale is " + scale + ", must be positive and finite");
    }
    long polyBytes = packed ? packedBytes(p, limbs) : 8L * p.ringDegree() * limbs;
    long expected = polyBytes + (seeded ? Samplers.SEED_BYTES : polyBytes);
    requireExactly(in, expected, "ciphertext residues");
    RnsPoly c0 = packed ? readPacked(in, p, limbs, "c0") : readLimbs(in, p, limbs, "c0");
    if (seeded) {
      byte[] seed = new byte[Samplers.SEED_BYTES];
      in.get(seed);
      RnsPoly c1 =
          Samplers.uniformFromSeed(
              seed, Ciphertext.C1_SEED_DOMAIN, p.moduli().subList(0, limbs), p.ringDegree());
      return new Ciphertext(p, c0, c1, scale, seed);
    }
    RnsPoly c1 = packed ? readPacked(in, p, limbs, "c1") : readLimbs(in, p, limbs, "c1");
    return new Ciphertext(p, c0, c1, scale, null);
  }

  /** The size of every private-mode upload under {@code p}: header, limbs, scale and c0. */
  public static long uploadBytes(Parameters p) {
    return EncodingHeader.SIZE + 9 + packedBytes(p, p.limbCount());
  }

  /**
   * A private-mode upload: {@code ct} (all of {@code p}'s limbs) without its c1, which the reader
   * derives ({@link #uploadFromBytes}).
   */
  public static byte[] toUploadBytes(Ciphertext ct) {
    Parameters p = ct.parameters();
    if (ct.limbCount() != p.limbCount()) {
      throw new IllegalArgumentException("an upload carries every limb of its parameters");
    }
    ByteBuffer out =
        ByteBuffer.allocate(Math.toIntExact(uploadBytes(p))).order(ByteOrder.BIG_ENDIAN);
    new EncodingHeader(EncodingHeader.Type.CIPHERTEXT, PACKED | DERIVED_C1, p.fingerprint())
        .writeTo(out);
    out.put((byte) ct.limbCount()).putDouble(ct.scale());
    putPacked(out, p, ct.c0());
    return out.array();
  }

  /**
   * Reads a private-mode upload whose c1 is expanded from {@code c1Seed} and whose scale must be
   * exactly {@code scale}: the size is checked before anything is read, then the header (exactly
   * the packed and derived flags), the limb count (all of {@code p}'s) and the scale.
   *
   * @throws MalformedEncodingException if any of these differ from the session's, or a residue is
   *     out of range
   */
  public static Ciphertext uploadFromBytes(byte[] bytes, Parameters p, byte[] c1Seed, double scale)
      throws MalformedEncodingException {
    if (bytes.length != uploadBytes(p)) {
      throw new MalformedEncodingException(
          "an upload of this session is exactly " + uploadBytes(p) + " bytes, not " + bytes.length);
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    EncodingHeader header =
        EncodingHeader.read(
            in, EncodingHeader.Type.CIPHERTEXT, SEEDED_C1 | PACKED | DERIVED_C1, p.fingerprint());
    if (header.flags() != (PACKED | DERIVED_C1)) {
      throw new MalformedEncodingException(
          "an upload's c1 is derived from the session: flags must be 0x"
              + Integer.toHexString(PACKED | DERIVED_C1)
              + ", were 0x"
              + Integer.toHexString(header.flags()));
    }
    int limbs = Byte.toUnsignedInt(in.get());
    if (limbs != p.limbCount()) {
      throw new MalformedEncodingException(
          "an upload has the session's " + p.limbCount() + " limbs, not " + limbs);
    }
    double declared = in.getDouble();
    if (Double.doubleToRawLongBits(declared) != Double.doubleToRawLongBits(scale)) {
      throw new MalformedEncodingException(
          "an upload's scale is the session's " + scale + ", not " + declared);
    }
    RnsPoly c0 = readPacked(in, p, limbs, "c0");
    RnsPoly c1 = Encryptor.c1FromSeed(c1Seed, p, limbs);
    return new Ciphertext(p, c0, c1, scale, c1Seed.clone());
  }

  public static byte[] toBytes(PublicKey key) {
    Parameters p = key.parameters();
    ByteBuffer out =
        ByteBuffer.allocate(
            EncodingHeader.SIZE + Samplers.SEED_BYTES + 8 * p.ringDegree() * p.limbCount());
    new EncodingHeader(EncodingHeader.Type.PUBLIC_KEY, 0, p.fingerprint()).writeTo(out);
    out.put(key.seed());
    putLimbs(out, key.b());
    return out.array();
  }

  public static PublicKey publicKeyFromBytes(byte[] bytes, Parameters p)
      throws MalformedEncodingException {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    EncodingHeader.read(in, EncodingHeader.Type.PUBLIC_KEY, 0, p.fingerprint());
    requireExactly(in, Samplers.SEED_BYTES + 8L * p.ringDegree() * p.limbCount(), "public key");
    byte[] seed = new byte[Samplers.SEED_BYTES];
    in.get(seed);
    return PublicKey.fromSeed(p, readLimbs(in, p, p.limbCount(), "b"), seed);
  }

  /** The owner's copy of a secret key. Never send these bytes anywhere. */
  public static byte[] toBytes(SecretKey key) {
    Parameters p = key.parameters();
    NegacyclicNtt ntt = p.ntts().getFirst();
    long q = ntt.modulus().value();
    long[] s = key.ntt().limb(0).clone();
    ntt.inverseInPlace(s);
    ByteBuffer out = ByteBuffer.allocate(EncodingHeader.SIZE + p.ringDegree() / 4);
    new EncodingHeader(EncodingHeader.Type.SECRET_KEY, 0, p.fingerprint()).writeTo(out);
    for (int i = 0; i < s.length; i += 4) {
      int packed = 0;
      for (int k = 0; k < 4; k++) {
        long v = s[i + k];
        int code = v == 0 ? 0 : v == 1 ? 1 : v == q - 1 ? 2 : -1;
        if (code < 0) {
          throw new IllegalStateException("secret key coefficient is not ternary");
        }
        packed |= code << (2 * k);
      }
      out.put((byte) packed);
    }
    return out.array();
  }

  public static SecretKey secretKeyFromBytes(byte[] bytes, Parameters p)
      throws MalformedEncodingException {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    EncodingHeader.read(in, EncodingHeader.Type.SECRET_KEY, 0, p.fingerprint());
    requireExactly(in, p.ringDegree() / 4, "secret key");
    long[] s = new long[p.ringDegree()];
    for (int i = 0; i < s.length; i += 4) {
      int packed = Byte.toUnsignedInt(in.get());
      for (int k = 0; k < 4; k++) {
        int code = (packed >>> (2 * k)) & 3;
        if (code == 3) {
          throw new MalformedEncodingException(
              "secret key coefficient " + (i + k) + " has the unused code 11");
        }
        s[i + k] = code == 2 ? -1 : code;
      }
    }
    RnsPoly poly = RnsPoly.fromSigned(s, p.moduli());
    poly.toNttInPlace(p.ntts());
    return new SecretKey(p, poly);
  }

  private static void requireExactly(ByteBuffer in, long expected, String what)
      throws MalformedEncodingException {
    if (in.remaining() != expected) {
      throw new MalformedEncodingException(
          what
              + " must be exactly "
              + expected
              + " bytes after the header fields, input has "
              + in.remaining());
    }
  }

  private static void putLimbs(ByteBuffer out, RnsPoly poly) {
    for (int l = 0; l < poly.limbCount(); l++) {
      for (long v : poly.limb(l)) {
        out.putLong(v);
      }
    }
  }

  /** One polynomial over the first {@code limbs} primes, each residue at its prime's bit length. */
  public static long packedBytes(Parameters p, int limbs) {
    long bytes = 0;
    for (int l = 0; l < limbs; l++) {
      bytes += ResidueBits.bytesFor(p.ringDegree(), p.moduli().get(l).bitLength());
    }
    return bytes;
  }

  static void putPacked(ByteBuffer out, Parameters p, RnsPoly poly) {
    for (int l = 0; l < poly.limbCount(); l++) {
      ResidueBits.Writer w = new ResidueBits.Writer(out);
      int bits = p.moduli().get(l).bitLength();
      for (long v : poly.limb(l)) {
        w.put(v, bits);
      }
      w.finish();
    }
  }

  private static RnsPoly readPacked(ByteBuffer in, Parameters p, int limbs, String name)
      throws MalformedEncodingException {
    long[][] values = new long[limbs][];
    for (int l = 0; l < limbs; l++) {
      values[l] = readResidues(in, p.moduli().get(l), p.ringDegree(), name + " limb " + l);
    }
    return RnsPoly.wrap(values, true);
  }

  /** {@code count} packed residues of {@code q}, each checked to be below it. */
  public static long[] readResidues(ByteBuffer in, Modulus q, int count, String what)
      throws MalformedEncodingException {
    int bits = q.bitLength();
    ResidueBits.Reader r = new ResidueBits.Reader(in, (long) count * bits);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      long v = r.get(bits);
      if (!q.isReduced(v)) {
        throw new MalformedEncodingException(
            what + " residue " + i + " is " + v + ", not below " + q.value());
      }
      out[i] = v;
    }
    r.finish();
    return out;
  }

  private static RnsPoly readLimbs(ByteBuffer in, Parameters p, int limbs, String name)
      throws MalformedEncodingException {
    long[][] values = new long[limbs][p.ringDegree()];
    for (int l = 0; l < limbs; l++) {
      Modulus q = p.moduli().get(l);
      long[] limb = values[l];
      for (int i = 0; i < limb.length; i++) {
        long v = in.getLong();
        if (!q.isReduced(v)) {
          throw new MalformedEncodingException(
              name
                  + " limb "
                  + l
                  + " residue "
                  + i
                  + " is "
                  + Long.toUnsignedString(v)
                  + ", not below "
                  + q.value());
        }
        limb[i] = v;
      }
    }
    return RnsPoly.wrap(values, true);
  }
}
