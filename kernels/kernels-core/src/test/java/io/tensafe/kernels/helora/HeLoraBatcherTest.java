package io.tensafe.kernels.helora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.TestRandoms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class HeLoraBatcherTest {
  private static final int D = 256;

  /** Forwards to a hosted operator and records the tokens of every applyAll unit. */
  private static final class Recording implements HeLoraOperator {
    final HostedCoefficientOperator inner =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(D), TestRandoms.seeded(3));
    final List<Integer> unitTokens = new CopyOnWriteArrayList<>();

    @Override
    public PreparedSite prepare(double[][] a) {
      return inner.prepare(a);
    }

    @Override
    public HeLoraResult apply(PreparedSite site, double[][] inputs) {
      return applyAll(List.of(new SiteInputs(site, inputs))).getFirst();
    }

    @Override
    public List<HeLoraResult> applyAll(List<SiteInputs> requests) {
      unitTokens.add(requests.stream().mapToInt(r -> r.inputs().length).sum());
      return inner.applyAll(requests);
    }
  }

  private static double[][] gaussian(int rows, int cols, double scale, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[][] m = new double[rows][cols];
    for (double[] row : m) {
      for (int j = 0; j < cols; j++) {
        row[j] = random.nextGaussian() * scale;
      }
    }
    return m;
  }

  private static void assertProducts(double[][] a, double[][] x, HeLoraResult result) {
    for (int t = 0; t < x.length; t++) {
      for (int i = 0; i < a.length; i++) {
        double expected = 0;
        for (int j = 0; j < D; j++) {
          expected += a[i][j] * x[t][j];
        }
        assertEquals(expected, result.outputs()[t][i], 1e-3, "token " + t + " row " + i);
      }
    }
  }

  @Test
  void submit_concurrentRequestsForTwoSites_runAsOneUnitWithCorrectResults() {
    Recording operator = new Recording();
    double[][] a = gaussian(8, D, 0.05, 1);
    double[][] b = gaussian(4, D, 0.05, 2);
    PreparedSite siteA = operator.prepare(a);
    PreparedSite siteB = operator.prepare(b);
    List<double[][]> inputs = new ArrayList<>();
    List<CompletableFuture<HeLoraResult>> futures = new ArrayList<>();
    try (HeLoraBatcher batcher = new HeLoraBatcher(operator, 1024, Duration.ofSeconds(1))) {
      for (int r = 0; r < 8; r++) {
        double[][] x = gaussian(3, D, 1, 10 + r);
        inputs.add(x);
        futures.add(batcher.submit(r % 2 == 0 ? siteA : siteB, x));
      }
      for (int r = 0; r < 8; r++) {
        assertProducts(r % 2 == 0 ? a : b, inputs.get(r), futures.get(r).join());
      }
    }
    assertEquals(List.of(24), operator.unitTokens);
  }

  @Test
  void submit_moreThanMaxTokens_splitsIntoUnitsNoLargerThanTheCap() {
    Recording operator = new Recording();
    double[][] a = gaussian(2, D, 0.05, 3);
    PreparedSite site = operator.prepare(a);
    List<CompletableFuture<HeLoraResult>> futures = new ArrayList<>();
    try (HeLoraBatcher batcher = new HeLoraBatcher(operator, 25, Duration.ofMillis(200))) {
      for (int r = 0; r < 6; r++) {
        futures.add(batcher.submit(site, gaussian(10, D, 1, 20 + r)));
      }
      futures.forEach(CompletableFuture::join);
    }
    assertEquals(60, operator.unitTokens.stream().mapToInt(Integer::intValue).sum());
    assertTrue(operator.unitTokens.stream().allMatch(t -> t <= 25), operator.unitTokens.toString());
    assertTrue(operator.unitTokens.size() >= 3, operator.unitTokens.toString());
  }

  @Test
  void submit_malformedInput_failsAtOnceAndAloneWhileOthersSucceed() {
    Recording operator = new Recording();
    double[][] a = gaussian(2, D, 0.05, 4);
    PreparedSite site = operator.prepare(a);
    try (HeLoraBatcher batcher = new HeLoraBatcher(operator, 64, Duration.ofMillis(50))) {
      double[][] good = gaussian(2, D, 1, 5);
      CompletableFuture<HeLoraResult> ok = batcher.submit(site, good);
      double[][] bad = gaussian(1, D, 1, 6);
      bad[0][7] = Double.NaN;
      assertThrows(IllegalArgumentException.class, () -> batcher.submit(site, bad));
      assertThrows(
          IllegalArgumentException.class, () -> batcher.submit(site, new double[][] {{1, 2}}));
      assertProducts(a, good, ok.join());
    }
  }

  @Test
  void submit_afterClose_refused() {
    Recording operator = new Recording();
    PreparedSite site = operator.prepare(gaussian(1, D, 0.05, 7));
    HeLoraBatcher batcher = new HeLoraBatcher(operator, 8, Duration.ZERO);
    batcher.close();
    assertThrows(IllegalStateException.class, () -> batcher.submit(site, gaussian(1, D, 1, 8)));
  }

  @Test
  void constructor_outOfRangeLimits_refused() {
    Recording operator = new Recording();
    assertThrows(
        IllegalArgumentException.class, () -> new HeLoraBatcher(operator, 0, Duration.ofMillis(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new HeLoraBatcher(operator, 8, Duration.ofSeconds(2)));
  }
}
