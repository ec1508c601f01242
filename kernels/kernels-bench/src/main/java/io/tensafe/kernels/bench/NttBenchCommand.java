package io.tensafe.kernels.bench;

import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.NttImplementation;
import io.tensafe.kernels.ring.Primes;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./tensafe bench ntt}: forward and inverse NTT of one limb, single thread. */
@Command(
    name = "ntt",
    mixinStandardHelpOptions = true,
    description = "Times the forward and inverse negacyclic NTT of one RNS limb on one thread.")
final class NttBenchCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--log-n",
      defaultValue = "14",
      description = "log2 of the ring degree, 11..16 (default: ${DEFAULT-VALUE})")
  int logN;

  @Option(
      names = "--bits",
      defaultValue = "50",
      description =
          "bit length of the limb's prime, 20..60; up to 50 runs on FMA lanes of doubles, above on"
              + " 64-bit words (default: ${DEFAULT-VALUE})")
  int bits;

  @Option(
      names = "--implementation",
      defaultValue = "configured",
      description =
          "configured (this JVM's choice, see -D"
              + NttImplementation.PROPERTY
              + "), scalar, vector, or both: scalar and vector timed in the same run (default:"
              + " ${DEFAULT-VALUE})")
  String implementation;

  @Option(names = "--json", description = "print one JSON object per line instead of a table")
  boolean json;

  @Option(
      names = "--backend",
      defaultValue = "cpu",
      description = "cpu or cuda (default: ${DEFAULT-VALUE}); cuda fails if no GPU is present")
  String backend;

  @Option(
      names = "--batch",
      split = ",",
      description =
          "limbs per call, e.g. 1,64,1024: reports limb-NTTs per second per batch size (one JSON"
              + " line each with --json) instead of one limb's latency")
  java.util.List<Integer> batches;

  @Option(
      names = "--seconds",
      defaultValue = "2",
      description =
          "measuring time per transform in seconds, after 2 s warm-up (default: ${DEFAULT-VALUE})")
  int seconds;

  @Override
  public void run() {
    if (logN < 11 || logN > 16) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--log-n must be in 11..16, was " + logN);
    }
    if (bits < 20 || bits > Modulus.MAX_BITS) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--bits must be in 20.." + Modulus.MAX_BITS + ", was " + bits);
    }
    if (seconds < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--seconds must be >= 0, was " + seconds);
    }
    int n = 1 << logN;
    NegacyclicNtt ntt = NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(bits, n, 1).getFirst()), n);
    if (!"cpu".equals(backend) && !"cuda".equals(backend)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--backend must be cpu or cuda, was " + backend);
    }
    if (batches != null || "cuda".equals(backend)) {
      List<Integer> sizes = batches == null ? List.of(1, 64, 1024) : batches;
      for (int size : sizes) {
        if (size < 1 || size > 16384) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--batch sizes must be in 1..16384, was " + size);
        }
      }
      new BatchedNttBench(ntt, bits, sizes, json, seconds).run(backend);
      return;
    }
    List<NegacyclicNtt> transforms = transforms(ntt);
    if (!json) {
      System.err.printf(
          "timing the NTT at N = 2^%d, %d-bit prime (about %d s) ...%n",
          logN, bits, 2 * (seconds + 2) * transforms.size());
      System.out.printf(
          Locale.ROOT,
          "%-10s %-10s %-15s %14s %14s%n",
          "log N",
          "prime bits",
          "implementation",
          "forward µs",
          "inverse µs");
    }
    for (NegacyclicNtt transform : transforms) {
      time(transform);
    }
  }

  private List<NegacyclicNtt> transforms(NegacyclicNtt configured) {
    return switch (implementation) {
      case "configured" -> List.of(configured);
      case "scalar" -> List.of(withImplementation(configured, NttImplementation.SCALAR));
      case "vector" -> List.of(withImplementation(configured, NttImplementation.VECTOR));
      case "both" ->
          List.of(
              withImplementation(configured, NttImplementation.SCALAR),
              withImplementation(configured, NttImplementation.VECTOR));
      default ->
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              "--implementation must be configured, scalar, vector or both, was " + implementation);
    };
  }

  private NegacyclicNtt withImplementation(NegacyclicNtt ntt, NttImplementation wanted) {
    try {
      return NegacyclicNtt.of(ntt.modulus(), ntt.degree(), wanted);
    } catch (IllegalStateException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private void time(NegacyclicNtt ntt) {
    int n = ntt.degree();
    long[] data = new long[n];
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < n; i++) {
      data[i] = random.nextLong(ntt.modulus().value());
    }
    // Two seconds of warm-up (interpreted, one vector transform takes about 0.35 s); a tenth of
    // one for --seconds 0, a smoke run.
    Stopwatch stopwatch =
        new Stopwatch(seconds == 0 ? 200 : 2000, 9, Math.max(1, seconds * 1000L / 9));
    double forwardUs = stopwatch.medianNanosPerCall(() -> ntt.forwardInPlace(data)) / 1000;
    double inverseUs = stopwatch.medianNanosPerCall(() -> ntt.inverseInPlace(data)) / 1000;
    String name = ntt.implementation().name().toLowerCase(Locale.ROOT);
    if (json) {
      System.out.printf(
          Locale.ROOT,
          "{\"log_n\":%d,\"prime_bits\":%d,%s,\"forward_us\":%.2f,"
              + "\"inverse_us\":%.2f,\"threads\":1}%n",
          logN,
          bits,
          ntt.laneFields(),
          forwardUs,
          inverseUs);
    } else {
      System.out.printf(
          Locale.ROOT,
          "%-10d %-10d %-15s %14.2f %14.2f%n",
          logN,
          bits,
          name + "/" + ntt.lanes() + "/" + ntt.arithmetic(),
          forwardUs,
          inverseUs);
    }
  }
}
