package io.tensafe.kernels.bench;

import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerPacking;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.KeyGenerator;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Packing private mode's answers (ADR 0032) at N = 4096 with two 54-bit primes, single thread,
 * milliseconds per packing: {@code leaves − 1} key switches (divide by them for one switch). The
 * leaves are uniform ciphertexts in coefficient form, as re-randomised leaves are.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class AnswerPackingBenchmark {

  /**
   * {@code leaves@spacing}: round one at d = 1536 in one chunk (16 plaintexts, rows 2048 apart) and
   * round two at rank 32 (rows 64 apart, four plaintexts: as far as a session's keys reach).
   */
  @Param({"16@2048", "4@64"})
  public String shape;

  private int spacing;

  private AnswerPacking packing;
  private List<long[][][]> input;

  @Setup
  public void setUp() throws Exception {
    Parameters p = Parameters.of(new ParameterSpec(12, List.of(54, 54), 30));
    SecureRandom random = new SecureRandom();
    GaloisKeys keys =
        GaloisKeys.generate(
            KeyGenerator.secretKey(p, random), GaloisKeys.packingElements(p), random);
    packing = new AnswerPacking(keys);
    SplittableRandom values = new SplittableRandom(42);
    input = new ArrayList<>();
    int count = Integer.parseInt(shape.substring(0, shape.indexOf('@')));
    spacing = Integer.parseInt(shape.substring(shape.indexOf('@') + 1));
    for (int t = 0; t < count; t++) {
      long[][][] ct = new long[2][2][p.ringDegree()];
      for (int c = 0; c < 2; c++) {
        for (int l = 0; l < 2; l++) {
          for (int i = 0; i < p.ringDegree(); i++) {
            ct[c][l][i] = values.nextLong(p.moduli().get(l).value());
          }
        }
      }
      input.add(ct);
    }
  }

  @Benchmark
  public long[][][] pack() {
    return packing.pack(input, spacing);
  }
}
