package io.tensafe.kernels.helora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BatchedOperatorTest {
  /** Returns each input's first value times the site's rank; slow, and refuses NaN inputs. */
  static final class Doubling implements HeLoraOperator {
    final AtomicInteger units = new AtomicInteger();

    @Override
    public PreparedSite prepare(double[][] a) {
      return new PreparedSite() {
        @Override
        public int rank() {
          return a.length;
        }

        @Override
        public int dimension() {
          return a[0].length;
        }
      };
    }

    @Override
    public HeLoraResult apply(PreparedSite site, double[][] inputs) {
      return applyAll(List.of(new SiteInputs(site, inputs))).getFirst();
    }

    @Override
    public List<HeLoraResult> applyAll(List<SiteInputs> requests) {
      units.incrementAndGet();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      List<HeLoraResult> out = new ArrayList<>();
      for (SiteInputs r : requests) {
        double[][] values = new double[r.inputs().length][1];
        for (int t = 0; t < values.length; t++) {
          if (Double.isNaN(r.inputs()[t][0])) {
            throw new IllegalArgumentException("NaN input");
          }
          values[t][0] = r.inputs()[t][0] * r.site().rank();
        }
        out.add(new HeLoraResult(values, new OperationCounts(values.length, 0, 0, 0, 0, 0)));
      }
      return out;
    }
  }

  @Test
  void concurrentCalls_shareUnits_andEachGetsItsOwnResults() throws Exception {
    Doubling inner = new Doubling();
    BatchedOperator op = new BatchedOperator(inner, 4096);
    PreparedSite site = op.prepare(new double[3][4]);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Double>> answers = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        double x = i;
        answers.add(
            pool.submit(
                () ->
                    op.applyAll(List.of(new HeLoraOperator.SiteInputs(site, new double[][] {{x}})))
                        .getFirst()
                        .outputs()[0][0]));
      }
      for (int i = 0; i < 32; i++) {
        assertEquals(3.0 * i, answers.get(i).get());
      }
    } finally {
      pool.shutdown();
    }
    long[] stats = op.statistics();
    assertEquals(32, stats[1]);
    assertTrue(stats[0] < 32, "calls that arrived while a unit ran shared the next: " + stats[0]);
    assertEquals(stats[0], inner.units.get());
  }

  @Test
  void aMalformedCall_failsAlone() throws Exception {
    BatchedOperator op = new BatchedOperator(new Doubling(), 4096);
    PreparedSite site = op.prepare(new double[2][4]);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Double>> good = new ArrayList<>();
      Future<Double> bad =
          pool.submit(() -> op.apply(site, new double[][] {{Double.NaN}}).outputs()[0][0]);
      for (int i = 0; i < 6; i++) {
        double x = i;
        good.add(pool.submit(() -> op.apply(site, new double[][] {{x}}).outputs()[0][0]));
      }
      for (int i = 0; i < 6; i++) {
        assertEquals(2.0 * i, good.get(i).get());
      }
      var e = assertThrows(java.util.concurrent.ExecutionException.class, bad::get);
      assertTrue(e.getCause() instanceof IllegalArgumentException);
    } finally {
      pool.shutdown();
    }
  }
}
