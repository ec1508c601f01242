package io.tensafe.kernels.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.kernels.helora.HeLoraResult;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.helora.PreparedSite;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.CoefficientExtractor;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.Primes;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

  /** One prime of {@code bits} bits for ring degree 2^logN, with its tables. */
  protected static NegacyclicNtt table(int logN, int bits) {
    int n = 1 << logN;
    return NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(bits, n, 1).getFirst()), n);
  }

  private static LimbBatch uniformBatch(NegacyclicNtt ntt, int limbs, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[][] data = new long[limbs][];
    for (int k = 0; k < limbs; k++) {
      data[k] = random.longs(ntt.degree(), 0, ntt.modulus().value()).toArray();
    }
    return new LimbBatch(java.util.Collections.nCopies(limbs, ntt), data);
  }

  @ParameterizedTest(name = "N = 2^{0}, {1} limbs")
  @CsvSource({"11, 1", "11, 7", "12, 3", "13, 2", "14, 1", "14, 9", "15, 2", "16, 1", "16, 3"})
  void forwardAndInverse_everyDegree_matchReferenceBitForBit(int logN, int limbs) {
    NegacyclicNtt ntt = table(logN, logN == 11 ? 54 : 60);
    LimbBatch batch = uniformBatch(ntt, limbs, 100L * logN + limbs);
    LimbBatch original = copy(batch);
    LimbBatch expected = copy(batch);
    for (long[] limb : expected.limbs()) {
      ntt.forwardInPlace(limb);
    }
    backend().forwardNttInPlace(batch);
    for (int k = 0; k < limbs; k++) {
      assertArrayEquals(expected.limbs()[k], batch.limbs()[k], "forward, limb " + k);
    }
    for (long[] limb : expected.limbs()) {
      ntt.inverseInPlace(limb);
    }
    backend().inverseNttInPlace(batch);
    for (int k = 0; k < limbs; k++) {
      assertArrayEquals(expected.limbs()[k], batch.limbs()[k], "inverse, limb " + k);
      assertArrayEquals(original.limbs()[k], batch.limbs()[k], "round trip, limb " + k);
    }
  }

  /** Random hosted weights: a random key, P random plaintexts, outputs at every d-th position. */
  protected static HostedLoraWeights randomWeights(
      NegacyclicNtt ntt, int plaintexts, int outputs, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long q = ntt.modulus().value();
    long[] key = random.longs(ntt.degree(), 0, q).toArray();
    long[][] pts = new long[plaintexts][];
    for (int p = 0; p < plaintexts; p++) {
      pts[p] = random.longs(ntt.degree(), 0, q).toArray();
    }
    int d = ntt.degree() / outputs;
    List<CoefficientExtractor> extractors = new ArrayList<>();
    for (int b = 0; b < outputs; b++) {
      extractors.add(new CoefficientExtractor(ntt, b * d + d - 1));
    }
    return new HostedLoraWeights(ntt, key, ntt.modulus().shoupPrecomputeAll(key), pts, extractors);
  }

  protected static long[][] randomRows(int rows, NegacyclicNtt ntt, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[][] data = new long[rows][];
    for (int t = 0; t < rows; t++) {
      data[t] = random.longs(ntt.degree(), 0, ntt.modulus().value()).toArray();
    }
    return data;
  }

  protected static long[][] copyRows(long[][] rows) {
    long[][] copy = new long[rows.length][];
    for (int t = 0; t < rows.length; t++) {
      copy[t] = rows[t].clone();
    }
    return copy;
  }

  @ParameterizedTest(name = "N = 2^{0}, {1} tokens, {2} plaintexts, {3} outputs each, {4}-bit q")
  @CsvSource({
    "11, 1, 1, 1, 50",
    "11, 5, 32, 1, 50",
    "11, 3, 3, 6, 50",
    "11, 2, 2, 16, 50",
    "11, 3, 3, 6, 54",
    "12, 4, 5, 2, 60",
    "13, 2, 3, 32, 50",
    "14, 3, 2, 1, 60"
  })
  void hostedLora_matchesCpuReferenceBitForBit(
      int logN, int tokens, int plaintexts, int outputs, int bits) {
    NegacyclicNtt ntt = table(logN, bits);
    HostedLoraWeights weights = randomWeights(ntt, plaintexts, outputs, logN * 1000L + tokens);
    long[][] messages = randomRows(tokens, ntt, 11);
    long[][] c1 = randomRows(tokens, ntt, 12);
    HostedLoraOutput expected =
        new CpuBackend().hostedLora(weights, copyRows(messages), copyRows(c1));
    long[][] c1Before = copyRows(c1);
    HostedLoraOutput actual = backend().hostedLora(weights, messages, c1);
    for (int t = 0; t < tokens; t++) {
      assertArrayEquals(expected.residues()[t], actual.residues()[t], "token " + t);
      assertArrayEquals(c1Before[t], c1[t], "c1 must not be modified");
    }
  }

  /**
   * Independent of every backend: decryption of ct×pt under the key gives (m + e)·p, so each output
   * is a coefficient of a negacyclic product computed here by schoolbook multiplication.
   */
  @ParameterizedTest(name = "{0}-bit q")
  @org.junit.jupiter.params.provider.ValueSource(ints = {50, 54})
  void hostedLora_outputsAreCoefficientsOfTheNegacyclicProduct(int bits) {
    NegacyclicNtt ntt = table(11, bits);
    Modulus q = ntt.modulus();
    int n = ntt.degree();
    HostedLoraWeights weights = randomWeights(ntt, 2, 4, 77);
    long[][] messages = randomRows(1, ntt, 78);
    long[] message = messages[0].clone();
    long[][] c1 = randomRows(1, ntt, 79);
    HostedLoraOutput output = backend().hostedLora(weights, messages, c1);
    HostedLoraWeights.Upload upload = weights.upload();
    for (int p = 0; p < 2; p++) {
      long[] plain = upload.plaintexts()[p].clone();
      ntt.inverseInPlace(plain);
      for (int b = 0; b < 4; b++) {
        int k = upload.positions()[b];
        long expected = 0;
        for (int j = 0; j < n; j++) {
          int i = k - j;
          long term = q.mul(message[j], plain[i >= 0 ? i : i + n]);
          expected = i >= 0 ? q.add(expected, term) : q.sub(expected, term);
        }
        assertEquals(expected, output.residues()[0][p * 4 + b], "plaintext " + p + " output " + b);
      }
    }
  }

  @Test
  void heLoraOperator_onThisBackend_equalsCpuOperatorBitForBit() {
    Parameters parameters = HostedCoefficientOperator.parametersFor(2048);
    HostedCoefficientOperator reference =
        new HostedCoefficientOperator(parameters, TestRandoms.seeded(5), new CpuBackend());
    HostedCoefficientOperator underTest =
        new HostedCoefficientOperator(parameters, TestRandoms.seeded(5), backend());
    SplittableRandom random = new SplittableRandom(6);
    double[][] a = new double[32][2048];
    double[][] x = new double[150][2048]; // two pipeline chunks of 64 and one of 22
    for (double[] row : a) {
      for (int j = 0; j < row.length; j++) {
        row[j] = random.nextGaussian() / 45;
      }
    }
    for (double[] row : x) {
      for (int j = 0; j < row.length; j++) {
        row[j] = random.nextGaussian();
      }
    }
    double[][] b = new double[4][2048];
    for (double[] row : b) {
      for (int j = 0; j < row.length; j++) {
        row[j] = random.nextGaussian() / 45;
      }
    }
    List<HeLoraOperator.SiteInputs> requests = new ArrayList<>();
    List<HeLoraOperator.SiteInputs> referenceRequests = new ArrayList<>();
    PreparedSite siteA = underTest.prepare(a);
    PreparedSite siteB = underTest.prepare(b);
    PreparedSite referenceA = reference.prepare(a);
    PreparedSite referenceB = reference.prepare(b);
    for (int r = 0; r < 6; r++) {
      double[][] inputs = java.util.Arrays.copyOfRange(x, 25 * r, 25 * r + 25);
      requests.add(new HeLoraOperator.SiteInputs(r % 2 == 0 ? siteA : siteB, inputs));
      referenceRequests.add(
          new HeLoraOperator.SiteInputs(r % 2 == 0 ? referenceA : referenceB, inputs));
    }
    List<HeLoraResult> fused = underTest.applyAll(requests);
    List<HeLoraResult> fusedReference = reference.applyAll(referenceRequests);
    for (int r = 0; r < requests.size(); r++) {
      for (int t = 0; t < 25; t++) {
        assertArrayEquals(
            fusedReference.get(r).outputs()[t], fused.get(r).outputs()[t], 0.0, "request " + r);
      }
    }
    PreparedSite referenceSite = reference.prepare(a);
    PreparedSite siteUnderTest = underTest.prepare(a);
    HeLoraResult expected = reference.apply(referenceSite, x);
    HeLoraResult actual = underTest.apply(siteUnderTest, x);
    for (int t = 0; t < x.length; t++) {
      assertArrayEquals(expected.outputs()[t], actual.outputs()[t], 0.0, "token " + t);
    }
    assertEquals(expected.counts(), actual.counts());
  }

  @Test
  void hostedLoraAll_severalSitesAndKeys_matchesOneCallPerSiteBitForBit() {
    NegacyclicNtt ntt = table(12, 60);
    List<HostedLoraCall> calls = new ArrayList<>();
    List<HostedLoraCall> copies = new ArrayList<>();
    int[][] shapes = {{3, 32, 1}, {1, 2, 4}, {5, 3, 16}, {2, 1, 2}, {4, 2, 32}};
    for (int c = 0; c < shapes.length; c++) {
      HostedLoraWeights weights = randomWeights(ntt, shapes[c][1], shapes[c][2], 500 + c);
      long[][] messages = randomRows(shapes[c][0], ntt, 600 + c);
      long[][] c1 = randomRows(shapes[c][0], ntt, 700 + c);
      calls.add(new HostedLoraCall(weights, messages, c1));
      copies.add(new HostedLoraCall(weights, copyRows(messages), copyRows(c1)));
    }
    List<HostedLoraOutput> fused = backend().hostedLoraAll(calls);
    assertEquals(calls.size(), fused.size());
    for (int c = 0; c < calls.size(); c++) {
      HostedLoraCall copy = copies.get(c);
      HostedLoraOutput alone =
          new CpuBackend().hostedLora(copy.weights(), copy.messages(), copy.c1());
      for (int t = 0; t < alone.residues().length; t++) {
        assertArrayEquals(alone.residues()[t], fused.get(c).residues()[t], "call " + c);
      }
      assertEquals(alone.extractions(), fused.get(c).extractions());
      assertEquals(alone.inverseNtts(), fused.get(c).inverseNtts());
    }
  }

  @Test
  void hostedLora_mismatchedTokens_refused() {
    NegacyclicNtt ntt = table(11, 54);
    HostedLoraWeights weights = randomWeights(ntt, 1, 1, 1);
    assertThrows(
        IllegalArgumentException.class,
        () -> backend().hostedLora(weights, randomRows(2, ntt, 1), randomRows(1, ntt, 2)));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            backend().hostedLora(weights, new long[][] {new long[5]}, new long[][] {new long[5]}));
  }

  @Test
  void limbBatch_withLimbsThatDoNotMatchItsTables_refused() {
    LimbBatch a = randomBatch(9);
    assertThrows(
        IllegalArgumentException.class,
        () -> new LimbBatch(a.tables(), new long[][] {new long[3]}));
  }
}
