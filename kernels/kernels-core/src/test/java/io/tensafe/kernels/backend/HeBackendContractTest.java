package io.tensafe.kernels.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.Primes;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What every {@link HeBackend} must do, bit for bit like the CPU reference. Subclass it once per
 * backend; a GPU backend's subclass runs only where a GPU is present. Shipped in kernels-core's
 * test jar so kernels-cuda can extend it.
 */
public abstract class HeBackendContractTest {

  /** The backend under test. */
  protected abstract HeBackend backend();

  /** A mixed batch: several primes and ring degrees, as a real launch would carry. */
  protected static LimbBatch randomBatch(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int[][] shapes = {{11, 54}, {12, 60}, {12, 54}, {14, 60}, {14, 50}, {16, 58}};
    List<NegacyclicNtt> tables = new ArrayList<>();
    long[][] limbs = new long[shapes.length][];
    for (int k = 0; k < shapes.length; k++) {
      int n = 1 << shapes[k][0];
      NegacyclicNtt ntt =
          NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(shapes[k][1], n, 1).getFirst()), n);
      tables.add(ntt);
      limbs[k] = random.longs(n, 0, ntt.modulus().value()).toArray();
    }
    return new LimbBatch(tables, limbs);
  }

  private static LimbBatch copy(LimbBatch batch) {
    long[][] limbs = new long[batch.size()][];
    for (int k = 0; k < batch.size(); k++) {
      limbs[k] = batch.limbs()[k].clone();
    }
    return new LimbBatch(batch.tables(), limbs);
  }

  @Test
  void forwardNtt_mixedBatch_matchesPerLimbReference() {
    LimbBatch batch = randomBatch(1);
    LimbBatch expected = copy(batch);
    for (int k = 0; k < expected.size(); k++) {
      expected.tables().get(k).forwardInPlace(expected.limbs()[k]);
    }
    backend().forwardNttInPlace(batch);
    for (int k = 0; k < batch.size(); k++) {
      assertArrayEquals(expected.limbs()[k], batch.limbs()[k], "limb " + k);
    }
  }

  @Test
  void inverseNtt_afterForward_restoresEveryLimb() {
    LimbBatch batch = randomBatch(2);
    LimbBatch original = copy(batch);
    backend().forwardNttInPlace(batch);
    backend().inverseNttInPlace(batch);
    for (int k = 0; k < batch.size(); k++) {
      assertArrayEquals(original.limbs()[k], batch.limbs()[k], "limb " + k);
    }
  }

  @Test
  void multiplyAndMultiplyAdd_matchBigInteger() {
    LimbBatch a = randomBatch(3);
    LimbBatch b = randomBatch(4);
    LimbBatch c = randomBatch(5);
    LimbBatch product = copy(a);
    LimbBatch fused = copy(a);
    LimbBatch sum = copy(a);
    backend().multiplyInto(a, b, product);
    backend().multiplyAddInto(a, b, c, fused);
    backend().addInto(a, b, sum);
    SplittableRandom probe = new SplittableRandom(6);
    for (int k = 0; k < a.size(); k++) {
      BigInteger q = BigInteger.valueOf(a.tables().get(k).modulus().value());
      for (int t = 0; t < 256; t++) {
        int i = probe.nextInt(a.limbs()[k].length);
        BigInteger x = BigInteger.valueOf(a.limbs()[k][i]);
        BigInteger y = BigInteger.valueOf(b.limbs()[k][i]);
        BigInteger w = BigInteger.valueOf(c.limbs()[k][i]);
        assertEquals(x.multiply(y).mod(q).longValue(), product.limbs()[k][i]);
        assertEquals(x.multiply(y).add(w).mod(q).longValue(), fused.limbs()[k][i]);
        assertEquals(x.add(y).mod(q).longValue(), sum.limbs()[k][i]);
      }
    }
  }

  @Test
  void multiplyInto_outputAliasesInput_isAllowed() {
    LimbBatch a = randomBatch(7);
    LimbBatch b = randomBatch(8);
    LimbBatch expected = copy(a);
    backend().multiplyInto(a, b, expected);
    backend().multiplyInto(a, b, a);
    for (int k = 0; k < a.size(); k++) {
      assertArrayEquals(expected.limbs()[k], a.limbs()[k]);
    }
  }

  @Test
  void operations_mismatchedBatches_refused() {
    LimbBatch a = randomBatch(9);
    LimbBatch smaller =
        new LimbBatch(a.tables().subList(0, 2), new long[][] {a.limbs()[0], a.limbs()[1]});
    assertThrows(IllegalArgumentException.class, () -> backend().multiplyInto(a, smaller, a));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LimbBatch(a.tables(), new long[][] {new long[3]}));
  }
}
