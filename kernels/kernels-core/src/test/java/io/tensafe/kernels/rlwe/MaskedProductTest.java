package io.tensafe.kernels.rlwe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.security.SecureRandom;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The fused masked product gives the words of the product plus a separate mask encryption. */
class MaskedProductTest {

  private static double[] values(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = random.nextDouble(-1, 1);
    }
    return v;
  }

  /** Two-limb N = 4096 keys, an input ciphertext and weights, all from {@code seed}. */
  private record Fixture(
      Parameters p,
      PublicKey pk,
      Ciphertext input,
      Plaintext weights,
      ShoupPlaintext shoupWeights) {
    static Fixture of(long seed) throws Exception {
      Parameters p = Parameters.of(new ParameterSpec(12, List.of(54, 54), 25));
      SecureRandom random = TestRandoms.seeded(seed);
      SecretKey sk = KeyGenerator.secretKey(p, random);
      PublicKey pk = KeyGenerator.publicKey(sk, random);
      Ciphertext input =
          Encryptor.encrypt(CoefficientEncoder.encode(values(4096, 1), 0x1p30, p, 2), sk, random);
      Plaintext weights = CoefficientEncoder.encode(values(4096, 2), 0x1p20, p, 2);
      return new Fixture(p, pk, input, weights, new ShoupPlaintext(weights, p.moduli()));
    }
  }

  @Test
  void compute_equalsProductPlusPublicKeyEncryption_wordForWord() throws Exception {
    Fixture f = Fixture.of(7);
    Parameters p = f.p();
    PublicKey pk = f.pk();
    Ciphertext input = f.input();
    Plaintext weights = f.weights();
    ShoupPlaintext shoupWeights = f.shoupWeights();
    RnsPoly uniform = Samplers.uniformFromSeed(new byte[Samplers.SEED_BYTES], 0, p.moduli(), 4096);
    // Uniform residues are uniform in either domain: take them as coefficients, as the node does.
    RnsPoly mask = RnsPoly.wrap(new long[][] {uniform.limb(0), uniform.limb(1)}, false);

    Ciphertext fused =
        MaskedProduct.compute(input, shoupWeights, mask.copy(), pk, TestRandoms.seeded(9));
    Ciphertext product = Evaluator.multiplyPlain(input, weights);
    Ciphertext separate =
        Evaluator.add(
            product,
            Encryptor.encryptCoefficients(mask.copy(), product.scale(), pk, TestRandoms.seeded(9)));

    for (int l = 0; l < 2; l++) {
      assertArrayEquals(separate.c0().limb(l), fused.c0().limb(l), "c0 limb " + l);
      assertArrayEquals(separate.c1().limb(l), fused.c1().limb(l), "c1 limb " + l);
    }
    assertEquals(separate.scale(), fused.scale());
  }

  @Test
  void compute_refusesAMaskInNttForm() throws Exception {
    Fixture f = Fixture.of(3);
    RnsPoly nttMask = RnsPoly.zero(2, 4096, true);
    assertThrows(
        IllegalArgumentException.class,
        () ->
            MaskedProduct.compute(
                f.input(), f.shoupWeights(), nttMask, f.pk(), TestRandoms.seeded(4)));
  }
}
