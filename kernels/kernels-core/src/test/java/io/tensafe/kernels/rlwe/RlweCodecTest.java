package io.tensafe.kernels.rlwe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.params.ParametersCodec;
import io.tensafe.kernels.protocol.UploadSeeds;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RlweCodecTest {
  private static final byte[] NONCE = new byte[UploadSeeds.NONCE_BYTES];

  private static final double DELTA = 0x1p30;

  /** Anything that parses bytes, for the mutation test. */
  private interface Reader {
    Object read(byte[] bytes) throws MalformedEncodingException;
  }

  private final Parameters p;
  private final SecretKey sk;
  private final SecureRandom random = new SecureRandom();

  RlweCodecTest() throws Exception {
    p = Parameters.of(new ParameterSpec(11, List.of(54), 25));
    sk = KeyGenerator.secretKey(p, random);
  }

  private Ciphertext encrypt(double... values) {
    return Encryptor.encrypt(CoefficientEncoder.encode(values, DELTA, p, 1), sk, random);
  }

  /**
   * A private-mode upload carries c0 only; its reader takes c1 from the session's seed and refuses
   * anything that is not exactly the session's: another scale, a seed or a whole c1 on the wire,
   * another size or limb count (ADR 0025).
   */
  @Test
  void upload_carriesOnlyC0_andOnlyTheSessionsScaleAndSeedAreRead() throws Exception {
    UploadSeeds seeds = new UploadSeeds(new byte[UploadSeeds.KEY_BYTES]);
    byte[] seed = seeds.seed(p.logN(), NONCE, 7, 2);
    assertEquals(32, seed.length);
    assertTrue(!Arrays.equals(seed, seeds.seed(p.logN(), NONCE, 7, 3)), "one seed per ciphertext");
    assertTrue(!Arrays.equals(seed, seeds.seed(p.logN(), NONCE, 8, 2)), "one seed per frame");
    Ciphertext ct =
        Encryptor.encrypt(
            CoefficientEncoder.encode(new double[] {0.5}, DELTA, p, 1), sk, seed, random);
    byte[] bytes = RlweCodec.toUploadBytes(ct);
    assertEquals(RlweCodec.uploadBytes(p), bytes.length);
    assertEquals(16 + 9 + 2048 * 54 / 8, bytes.length);
    Ciphertext back = RlweCodec.uploadFromBytes(bytes, p, seed, DELTA);
    assertEquals(ct.c1(), back.c1());
    double[] decoded = CoefficientEncoder.decode(Decryptor.decrypt(back, sk), p);
    assertEquals(0.5, decoded[0], 1e-6);
    // Another seed decodes, but to noise: the client cannot pick c1, the node expands its own.
    Ciphertext other =
        RlweCodec.uploadFromBytes(bytes, p, seeds.seed(p.logN(), NONCE, 7, 3), DELTA);
    double[] wrong = CoefficientEncoder.decode(Decryptor.decrypt(other, sk), p);
    assertTrue(Math.abs(wrong[0] - 0.5) > 1, "a c1 from another seed must not decrypt");
    assertThrows(
        MalformedEncodingException.class,
        () -> RlweCodec.uploadFromBytes(bytes, p, seed, DELTA / 2));
    assertThrows(
        MalformedEncodingException.class,
        () -> RlweCodec.uploadFromBytes(RlweCodec.toBytes(ct), p, seed, DELTA));
    Ciphertext unseeded =
        Evaluator.addPlain(ct, CoefficientEncoder.encode(new double[] {1}, DELTA, p, 1));
    byte[] whole = RlweCodec.toBytes(unseeded);
    assertThrows(
        MalformedEncodingException.class, () -> RlweCodec.uploadFromBytes(whole, p, seed, DELTA));
    byte[] flagged = bytes.clone();
    flagged[7] = 7; // the seeded flag beside the derived one
    assertThrows(
        MalformedEncodingException.class, () -> RlweCodec.uploadFromBytes(flagged, p, seed, DELTA));
    assertThrows(
        MalformedEncodingException.class,
        () -> RlweCodec.uploadFromBytes(Arrays.copyOf(bytes, bytes.length + 1), p, seed, DELTA));
    assertThrows(MalformedEncodingException.class, () -> RlweCodec.ciphertextFromBytes(bytes, p));
  }

  @Test
  void ciphertext_seededAndFull_roundTripAndDecrypt() throws Exception {
    Ciphertext seeded = encrypt(0.25, -1.5);
    byte[] bytes = RlweCodec.toBytes(seeded);
    // Header, limb count and scale, c0 at 54 bits a residue, and a 32-byte seed instead of c1.
    assertEquals(16 + 9 + 54 * 2048 / 8 + 32, bytes.length);
    Ciphertext back = RlweCodec.ciphertextFromBytes(bytes, p);
    double[] decoded = CoefficientEncoder.decode(Decryptor.decrypt(back, sk), p);
    assertEquals(0.25, decoded[0], 1e-6);
    assertEquals(-1.5, decoded[1], 1e-6);
    Ciphertext full = Evaluator.dropLimbs(seeded, 1); // no seed any more
    Ciphertext fullBack = RlweCodec.ciphertextFromBytes(RlweCodec.toBytes(full), p);
    assertEquals(full.c1(), fullBack.c1());
  }

  @Test
  void keys_roundTrip_stillWork() throws Exception {
    SecretKey skBack = RlweCodec.secretKeyFromBytes(RlweCodec.toBytes(sk), p);
    assertEquals(sk.ntt(), skBack.ntt());
    PublicKey pk = KeyGenerator.publicKey(sk, random);
    PublicKey pkBack = RlweCodec.publicKeyFromBytes(RlweCodec.toBytes(pk), p);
    Ciphertext ct =
        Encryptor.encrypt(CoefficientEncoder.encode(new double[] {3}, DELTA, p, 1), pkBack, random);
    assertEquals(3, CoefficientEncoder.decode(Decryptor.decrypt(ct, skBack), p)[0], 1e-4);
    assertEquals(p, ParametersCodec.fromBytes(ParametersCodec.toBytes(p)));
  }

  @Test
  void ciphertext_otherParameters_refusedByFingerprint() throws Exception {
    Parameters other = Parameters.of(new ParameterSpec(11, List.of(54), 26));
    MalformedEncodingException e =
        assertThrows(
            MalformedEncodingException.class,
            () -> RlweCodec.ciphertextFromBytes(RlweCodec.toBytes(encrypt(1)), other));
    assertTrue(e.getMessage().contains("fingerprint"), e.getMessage());
  }

  @Test
  void ciphertext_residueNotBelowPrime_refusedNamingIt() {
    byte[] bytes = RlweCodec.toBytes(encrypt(1));
    Arrays.fill(bytes, 25, 33, (byte) 0xFF); // first residue of c0
    MalformedEncodingException e =
        assertThrows(
            MalformedEncodingException.class, () -> RlweCodec.ciphertextFromBytes(bytes, p));
    assertTrue(e.getMessage().contains("c0 limb 0 residue 0"), e.getMessage());
  }

  @Test
  void parameters_insecureOrForeignChain_refused() throws Exception {
    byte[] bytes = ParametersCodec.toBytes(p);
    byte[] wrongPrime = bytes.clone();
    wrongPrime[bytes.length - 1] ^= 2; // still odd, but not the generated prime
    assertThrows(MalformedEncodingException.class, () -> ParametersCodec.fromBytes(wrongPrime));
    Parameters insecure = Parameters.ofInsecureForTesting(new ParameterSpec(11, List.of(60), 25));
    MalformedEncodingException e =
        assertThrows(
            MalformedEncodingException.class,
            () -> ParametersCodec.fromBytes(ParametersCodec.toBytes(insecure)));
    assertTrue(e.getMessage().contains("INSECURE"), e.getMessage());
  }

  @Test
  void readers_seededMutationsAndTruncations_onlyRaiseTheDocumentedException() {
    PublicKey pk = KeyGenerator.publicKey(sk, random);
    List<byte[]> originals =
        List.of(
            RlweCodec.toBytes(encrypt(1, 2, 3)),
            RlweCodec.toBytes(Evaluator.dropLimbs(encrypt(4), 1)),
            RlweCodec.toBytes(pk),
            RlweCodec.toBytes(sk),
            ParametersCodec.toBytes(p));
    List<Reader> readers =
        List.of(
            b -> RlweCodec.ciphertextFromBytes(b, p),
            b -> RlweCodec.ciphertextFromBytes(b, p),
            b -> RlweCodec.publicKeyFromBytes(b, p),
            b -> RlweCodec.secretKeyFromBytes(b, p),
            ParametersCodec::fromBytes);
    SplittableRandom mutations = new SplittableRandom(2026);
    int refused = 0;
    for (int round = 0; round < 3000; round++) {
      int which = round % originals.size();
      byte[] bytes = mutate(originals.get(which), mutations);
      try {
        readers.get(which).read(bytes);
      } catch (MalformedEncodingException expected) {
        refused++;
      } catch (RuntimeException | Error e) {
        fail("round " + round + " raised " + e, e);
      }
    }
    assertTrue(refused > 1500, "most mutations must be refused, only " + refused + " were");
  }

  private static byte[] mutate(byte[] original, SplittableRandom random) {
    return switch (random.nextInt(4)) {
      case 0 -> Arrays.copyOf(original, random.nextInt(original.length)); // truncate
      case 1 -> Arrays.copyOf(original, original.length + 1 + random.nextInt(64)); // extend
      case 2 -> { // flip bits in the header and counts, where every bit matters
        byte[] b = original.clone();
        int index = random.nextInt(Math.min(b.length, 27));
        b[index] ^= (byte) (1 << random.nextInt(8));
        yield b;
      }
      default -> { // overwrite a random 8-byte word with random bits
        byte[] b = original.clone();
        int index = random.nextInt(b.length);
        for (int i = index; i < Math.min(b.length, index + 8); i++) {
          b[i] = (byte) random.nextInt(256);
        }
        yield b;
      }
    };
  }

  @Test
  void secretKey_unusedCode_refused() {
    byte[] bytes = RlweCodec.toBytes(sk);
    bytes[16] = (byte) 0xFF;
    assertThrows(MalformedEncodingException.class, () -> RlweCodec.secretKeyFromBytes(bytes, p));
    assertArrayEquals(RlweCodec.toBytes(sk), RlweCodec.toBytes(sk));
  }
}
