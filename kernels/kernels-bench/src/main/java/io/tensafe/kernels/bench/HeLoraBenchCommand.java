package io.tensafe.kernels.bench;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.cuda.CudaBackend;
import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.kernels.helora.HeLoraResult;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.helora.HostedSlotOperator;
import io.tensafe.kernels.helora.PreparedSite;
import io.tensafe.kernels.params.Parameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tensafe bench he-lora}: encrypted {@code A·x} per token against plaintext {@code A·x}.
 */
@Command(
    name = "he-lora",
    mixinStandardHelpOptions = true,
    description = "Times the HE-LoRA operator per token and checks its precision in the same run.")
final class HeLoraBenchCommand implements Runnable {

  /** Packings this build implements. */
  enum Packing {
    coefficient,
    slot
  }

  /** Modes this build implements. */
  enum Mode {
    hosted,
    /** Both rounds of the two-round protocol, client and node, each stage timed. */
    PRIVATE;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--dim",
      defaultValue = "2048",
      description = "input dimension d (default: ${DEFAULT-VALUE})")
  int dimension;

  @Option(
      names = "--rank",
      defaultValue = "32",
      description = "LoRA rank r (default: ${DEFAULT-VALUE})")
  int rank;

  @Option(
      names = "--packing",
      defaultValue = "coefficient",
      description = "one of: ${COMPLETION-CANDIDATES}")
  Packing packing;

  @Option(
      names = "--mode",
      defaultValue = "hosted",
      description = "one of: ${COMPLETION-CANDIDATES}")
  Mode mode;

  @Option(
      names = "--batch",
      defaultValue = "1",
      split = ",",
      description =
          "tokens per apply call; a list such as 1,64,512 runs each (default: ${DEFAULT-VALUE})")
  List<Integer> batches;

  @Option(
      names = "--sites",
      defaultValue = "1",
      description =
          "LoRA sites per call (hosted coefficient packing): each call applies --batch tokens to"
              + " every site as one unit of backend work; times are per token per site"
              + " (default: ${DEFAULT-VALUE})")
  int sites;

  @Option(
      names = "--backend",
      defaultValue = "cpu",
      description =
          "cpu or cuda (default: ${DEFAULT-VALUE}); cuda runs hosted coefficient packing on the GPU"
              + " and fails if no GPU is present")
  String backend;

  @Option(
      names = "--threads",
      defaultValue = "1",
      description = "concurrent apply calls (default: ${DEFAULT-VALUE})")
  int threads;

  @Option(
      names = "--seconds",
      defaultValue = "3",
      description = "measuring time in seconds, after 1 s warm-up (default: ${DEFAULT-VALUE})")
  int seconds;

  @Option(names = "--json", description = "print one JSON object instead of a table")
  boolean json;

  @Override
  public void run() {
    require(
        "cpu".equals(backend) || "cuda".equals(backend),
        "--backend must be cpu or cuda, was " + backend);
    if ("cpu".equals(backend)) {
      for (int batch : batches) {
        runOne(batch, new CpuBackend(), "cpu");
      }
      return;
    }
    require(
        packing == Packing.coefficient && mode == Mode.hosted,
        "--backend cuda runs hosted coefficient packing only");
    try (CudaBackend cuda = CudaBackend.open()) {
      System.err.println("HE-LoRA on " + cuda.describe());
      for (int batch : batches) {
        runOne(batch, cuda, cuda.describe());
      }
    }
  }

  private void runOne(int batch, HeBackend heBackend, String device) {
    require(dimension >= 1 && dimension <= 1 << 16, "--dim must be in 1..65536, was " + dimension);
    require(rank >= 1 && rank <= 1024, "--rank must be in 1..1024, was " + rank);
    require(threads >= 1 && threads <= 256, "--threads must be in 1..256, was " + threads);
    require(sites >= 1 && sites <= 256, "--sites must be in 1..256, was " + sites);
    require(
        sites == 1 || (threads == 1 && packing == Packing.coefficient && mode == Mode.hosted),
        "--sites above 1 needs hosted coefficient packing and --threads 1");
    require(seconds >= 0, "--seconds must be >= 0, was " + seconds);
    if (mode == Mode.PRIVATE) {
      require(
          packing == Packing.coefficient,
          "slot packing is hosted-only: a client decrypting slot-packed products would see every A_ij·x_j");
      require(batch == 1 && threads == 1, "private mode is timed one token at a time");
      runPrivate();
      return;
    }
    Parameters parameters;
    HeLoraOperator operator;
    TimedBackend timed = new TimedBackend(heBackend);
    if (packing == Packing.slot) {
      require(
          mode == Mode.hosted,
          "slot packing is hosted-only: a client decrypting slot-packed products would see every A_ij·x_j");
      require(
          dimension <= 1 << 15, "--dim must be at most 32768 for slot packing, was " + dimension);
      parameters = HostedSlotOperator.parametersFor(dimension);
      operator = new HostedSlotOperator(parameters, drbg());
    } else {
      parameters = HostedCoefficientOperator.parametersFor(dimension);
      operator = new HostedCoefficientOperator(parameters, drbg(), timed);
    }
    double[][] a = gaussianMatrix(rank, dimension, 1 / Math.sqrt(dimension), 1);
    double[][][] inputs = new double[threads][][];
    for (int t = 0; t < threads; t++) {
      inputs[t] = gaussianMatrix(batch, dimension, 1, 2 + t);
    }
    PreparedSite site = operator.prepare(a);
    double maxRelError = maxRelativeError(a, inputs[0], operator.apply(site, inputs[0]));
    List<HeLoraOperator.SiteInputs> units = new ArrayList<>();
    for (int k = 0; k < sites; k++) {
      PreparedSite other =
          k == 0
              ? site
              : operator.prepare(
                  gaussianMatrix(rank, dimension, 1 / Math.sqrt(dimension), 100 + k));
      units.add(new HeLoraOperator.SiteInputs(other, inputs[0]));
    }
    if (!json) {
      System.err.printf(
          "timing HE-LoRA d=%d r=%d (about %d s) ...%n", dimension, rank, 2 * (seconds + 1));
    }
    Stopwatch stopwatch = new Stopwatch(1000, 7, Math.max(1, seconds * 1000L / 7));
    double heNanos;
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      heNanos =
          sites == 1
              ? stopwatch.medianNanosPerCall(() -> applyConcurrently(pool, operator, site, inputs))
              : stopwatch.medianNanosPerCall(() -> operator.applyAll(units));
    }
    double heMsPerToken = heNanos / 1e6 / ((double) batch * threads * sites);
    // Share of the backend call (ring arithmetic and transfers) in a few more calls; the rest of
    // each token's time is host work: encoding and sampling.
    timed.reset();
    int extraCalls = 5;
    for (int i = 0; i < extraCalls; i++) {
      operator.applyAll(units);
    }
    double backendUsPerToken =
        timed.hostedLoraNanos() / 1e3 / ((double) extraCalls * batch * sites);
    double[] sink = new double[rank];
    double plainNanos = stopwatch.medianNanosPerCall(() -> multiplyInto(a, inputs[0][0], sink));
    double plainMsPerToken = plainNanos / 1e6;
    if (json) {
      System.out.printf(
          Locale.ROOT,
          "{\"dim\":%d,\"rank\":%d,\"packing\":\"%s\",\"mode\":\"%s\",\"ring_degree\":%d,\"limbs\":%d,%s,"
              + "\"batch\":%d,\"he_ms_per_token\":%.4f,\"plain_ms_per_token\":%.4f,\"max_rel_error\":%.3e,\"threads\":%d,"
              + "\"backend\":\"%s\",\"us_per_token_per_site\":%.2f,"
              + "\"backend_call_us_per_token\":%.2f,\"device\":\"%s\"}%n",
          dimension,
          rank,
          packing,
          mode,
          parameters.ringDegree(),
          parameters.limbCount(),
          "cuda".equals(heBackend.name())
              ? BatchedNttBench.CUDA_LANE_FIELDS
              : parameters.ntts().getFirst().laneFields(),
          batch,
          heMsPerToken,
          plainMsPerToken,
          maxRelError,
          threads,
          heBackend.name(),
          heMsPerToken * 1000,
          backendUsPerToken,
          device.replace("\"", "'"));
    } else {
      System.out.printf(
          Locale.ROOT,
          "%-6s %-5s %-12s %-7s %-6s %-6s %-6s %-8s %14s %16s %14s%n",
          "d",
          "r",
          "packing",
          "mode",
          "N",
          "limbs",
          "batch",
          "threads",
          "HE ms/token",
          "plain ms/token",
          "max rel err");
      System.out.printf(
          Locale.ROOT,
          "%-6d %-5d %-12s %-7s %-6d %-6d %-6d %-8d %14.4f %16.4f %14.3e%n",
          dimension,
          rank,
          packing,
          mode,
          parameters.ringDegree(),
          parameters.limbCount(),
          batch,
          threads,
          heMsPerToken,
          plainMsPerToken,
          maxRelError);
    }
  }

  /**
   * Both rounds of private mode at one site (A: r × d, B: d × r), 3 warm-up tokens then at least 7,
   * more with {@code --seconds}; one JSON line or a table.
   */
  private void runPrivate() {
    double[][] a = gaussianMatrix(rank, dimension, 1 / Math.sqrt(dimension), 1);
    double[][] b = gaussianMatrix(dimension, rank, 1 / Math.sqrt(rank), 3);
    PrivateRoundsBench.run(a, b, gaussianMatrix(3, dimension, 1, 4), drbg());
    int tokens = Math.max(7, seconds * 20);
    PrivateRoundsBench.Result r =
        PrivateRoundsBench.run(a, b, gaussianMatrix(tokens, dimension, 1, 2), drbg());
    if (json) {
      System.out.println(PrivateRoundsBench.json(r, dimension, rank));
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "d=%d r=%d N=%d chunks=%d: node round one %.1f us, round two %.1f us; client %.1f us;"
            + " bytes up/down round one %d/%d, round two %d/%d; max rel error %.3e%n",
        dimension,
        rank,
        r.ringDegree(),
        r.chunks(),
        r.nodeRoundOneUs(),
        r.nodeRoundTwoUs(),
        r.clientUs(),
        r.roundOneBytesUp(),
        r.roundOneBytesDown(),
        r.roundTwoBytesUp(),
        r.roundTwoBytesDown(),
        r.maxRelError());
  }

  /**
   * The JDK's NIST SP 800-90A DRBG: a CSPRNG that does not read /dev/urandom under a global lock.
   */
  private static SecureRandom drbg() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the DRBG SecureRandom is required by the JDK", e);
    }
  }

  /** Accepts "hosted" and "private" ("private" is a Java keyword, so the constant differs). */
  static final class ModeConverter implements CommandLine.ITypeConverter<Mode> {
    @Override
    public Mode convert(String value) {
      for (Mode m : Mode.values()) {
        if (m.toString().equals(value)) {
          return m;
        }
      }
      throw new CommandLine.TypeConversionException(
          "expected hosted or private, was '" + value + "'");
    }
  }

  private void require(boolean condition, String message) {
    if (!condition) {
      throw new CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  private static void applyConcurrently(
      ExecutorService pool, HeLoraOperator operator, PreparedSite site, double[][][] inputs) {
    if (inputs.length == 1) {
      operator.apply(site, inputs[0]);
      return;
    }
    Future<?>[] futures = new Future<?>[inputs.length];
    for (int t = 0; t < inputs.length; t++) {
      double[][] batch = inputs[t];
      futures[t] = pool.submit(() -> operator.apply(site, batch));
    }
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("an apply call failed", e);
    }
  }

  /** {@code out = a·x} for a row-major {@code a}. */
  static void multiplyInto(double[][] a, double[] x, double[] out) {
    for (int i = 0; i < a.length; i++) {
      double sum = 0;
      double[] row = a[i];
      for (int j = 0; j < x.length; j++) {
        sum += row[j] * x[j];
      }
      out[i] = sum;
    }
  }

  private static double maxRelativeError(double[][] a, double[][] inputs, HeLoraResult result) {
    double worst = 0;
    double[] expected = new double[a.length];
    for (int t = 0; t < inputs.length; t++) {
      multiplyInto(a, inputs[t], expected);
      double error = 0;
      double magnitude = 0;
      for (int i = 0; i < a.length; i++) {
        error = Math.max(error, Math.abs(expected[i] - result.outputs()[t][i]));
        magnitude = Math.max(magnitude, Math.abs(expected[i]));
      }
      worst = Math.max(worst, error / magnitude);
    }
    return worst;
  }

  private static double[][] gaussianMatrix(int rows, int columns, double sigma, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[][] m = new double[rows][columns];
    for (double[] row : m) {
      Arrays.setAll(row, j -> random.nextGaussian() * sigma);
    }
    return m;
  }
}
