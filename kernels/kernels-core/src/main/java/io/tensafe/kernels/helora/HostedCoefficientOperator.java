package io.tensafe.kernels.helora;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.backend.HostedLoraCall;
import io.tensafe.kernels.backend.HostedLoraOutput;
import io.tensafe.kernels.backend.HostedLoraWeights;
import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.CoefficientExtractor;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.Samplers;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.SecretKey;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;

/**
 * HE-LoRA in hosted mode with COEFFICIENT packing ({@link CoefficientLayout}): the node generates a
 * secret key per operator (per session) and, for every input, encrypts it under that key (c1 from a
 * seed), multiplies the ciphertext by each prepared plaintext of A, decrypts each product and reads
 * the output coefficients. Hosted mode protects nothing from the node operator; it exists so the
 * cost of the encrypted computation is real and measured.
 *
 * <p>Scales. With q the single prime and {@code budget = log2 q - 2}, A is encoded with {@code Δa =
 * 2^(budget/2) / max_i ‖A_i‖₁} and each input with {@code Δx = 2^(budget/2) / ‖x‖∞}, so every
 * product coefficient satisfies {@code |Δx·Δa·⟨A_i, x⟩| ≤ 2^budget = q/4} whatever the data: the
 * decrypted value never wraps. Rounding and noise (|e| ≤ 20) then bound the absolute error by about
 * {@code 21 · ‖x‖∞ · ‖A_i‖₁ · 2^-(budget/2)}.
 *
 * <p>Thread-safe: {@link #apply} may be called concurrently; the key and prepared sites are
 * immutable and the CSPRNG is thread-safe.
 */
public final class HostedCoefficientOperator implements HeLoraOperator {
  /** Below this many tokens, preparing the encryptions on several threads does not pay. */
  private static final int PARALLEL_PREPARATION_TOKENS = 8;

  private final Parameters parameters;
  private final HeBackend backend;
  private final SecretKey secretKey;
  private final long[] secretKeyValues;
  private final long[] secretKeyShoup;
  private final SecureRandom random;
  private final double halfBudget;
  private final LongAdder encodeSampleNanos = new LongAdder();
  private final LongAdder backendNanos = new LongAdder();
  private final LongAdder decodeNanos = new LongAdder();
  private final Map<Integer, List<CoefficientExtractor>> extractorsByDimension =
      new ConcurrentHashMap<>();

  /**
   * An operator with a fresh session key on the CPU reference backend.
   *
   * @param parameters a set with exactly one prime (a depth-1 product needs no more)
   */
  public HostedCoefficientOperator(Parameters parameters, SecureRandom random) {
    this(parameters, random, new CpuBackend());
  }

  /**
   * An operator with a fresh session key whose ring arithmetic runs on {@code backend}. Sampling
   * and encoding stay on the CPU, so every backend computes on the same inputs and returns the same
   * residues.
   *
   * @param parameters a set with exactly one prime (a depth-1 product needs no more)
   */
  public HostedCoefficientOperator(Parameters parameters, SecureRandom random, HeBackend backend) {
    if (parameters.limbCount() != 1) {
      throw new IllegalArgumentException(
          "hosted coefficient packing uses one prime; parameters have " + parameters.limbCount());
    }
    this.parameters = parameters;
    this.backend = backend;
    this.random = random;
    this.secretKey = KeyGenerator.secretKey(parameters, random);
    long[][] keyForBackend = secretKey.copyForOwnBackend(0);
    this.secretKeyValues = keyForBackend[0];
    this.secretKeyShoup = keyForBackend[1];
    double logQ = parameters.moduli().getFirst().log2();
    this.halfBudget = Math.pow(2, (logQ - 2) / 2);
  }

  private record Site(
      CoefficientLayout layout,
      double scale,
      HostedLoraWeights weights,
      HostedCoefficientOperator owner)
      implements CoefficientSite {}

  @Override
  public PreparedSite prepare(double[][] a) {
    if (a.length == 0) {
      throw new IllegalArgumentException("A has no rows");
    }
    int d = a[0].length;
    CoefficientLayout layout = new CoefficientLayout(d, a.length, parameters.ringDegree());
    double maxRowL1 = RowChecks.maxRowL1(a);
    double scale = halfBudget / (maxRowL1 > 0 ? maxRowL1 : 1);
    int rows = layout.rowsPerPlaintext();
    long[][] plaintexts = new long[layout.plaintextCount()][];
    for (int p = 0; p < layout.plaintextCount(); p++) {
      double[] coefficients = new double[parameters.ringDegree()];
      for (int b = 0; b < rows && p * rows + b < a.length; b++) {
        double[] row = a[p * rows + b];
        for (int j = 0; j < d; j++) {
          coefficients[layout.weightCoefficient(b, j)] = row[j];
        }
      }
      plaintexts[p] = CoefficientEncoder.encode(coefficients, scale, parameters, 1).poly().limb(0);
    }
    List<CoefficientExtractor> extractors =
        extractorsByDimension.computeIfAbsent(d, dim -> extractors(layout));
    HostedLoraWeights weights =
        new HostedLoraWeights(
            parameters.ntts().getFirst(), secretKeyValues, secretKeyShoup, plaintexts, extractors);
    return new Site(layout, scale, weights, this);
  }

  private List<CoefficientExtractor> extractors(CoefficientLayout layout) {
    NegacyclicNtt ntt = parameters.ntts().getFirst();
    List<CoefficientExtractor> list = new ArrayList<>();
    for (int b = 0; b < layout.rowsPerPlaintext(); b++) {
      list.add(new CoefficientExtractor(ntt, layout.outputCoefficient(b)));
    }
    return List.copyOf(list);
  }

  @Override
  public HeLoraResult apply(PreparedSite prepared, double[][] inputs) {
    return applyAll(List.of(new SiteInputs(prepared, inputs))).getFirst();
  }

  /**
   * Every request's tokens are encoded and sampled together on the CPU threads, then go to the
   * backend as one {@link HeBackend#hostedLoraAll} call per chunk of at most 64 tokens (a single
   * call below 128 tokens); the backend works on one chunk while the CPU prepares the next.
   */
  @Override
  public List<HeLoraResult> applyAll(List<SiteInputs> requests) {
    int count = requests.size();
    Site[] sites = new Site[count];
    int[] firstToken = new int[count + 1];
    for (int r = 0; r < count; r++) {
      if (!(requests.get(r).site() instanceof Site site) || site.owner() != this) {
        throw new IllegalArgumentException("site was prepared by another operator");
      }
      sites[r] = site;
      firstToken[r + 1] = firstToken[r] + requests.get(r).inputs().length;
    }
    int tokens = firstToken[count];
    double[][] inputs = new double[tokens][];
    int[] requestOf = new int[tokens];
    double[] inputScales = new double[tokens];
    for (int r = 0; r < count; r++) {
      double[][] own = requests.get(r).inputs();
      for (int t = 0; t < own.length; t++) {
        double largest = RowChecks.maxAbs(own[t], sites[r].layout().dimension(), t);
        int g = firstToken[r] + t;
        inputs[g] = own[t];
        requestOf[g] = r;
        inputScales[g] = halfBudget / (largest > 0 ? largest : 1);
      }
    }
    long[][] residues = encryptMultiplyDecrypt(sites, requestOf, inputs, inputScales);
    long decodeStart = System.nanoTime();
    List<HeLoraResult> results = new ArrayList<>(count);
    long modulus = parameters.moduli().getFirst().value();
    for (int r = 0; r < count; r++) {
      Site site = sites[r];
      CoefficientLayout layout = site.layout();
      int requestTokens = firstToken[r + 1] - firstToken[r];
      int outputs = site.weights().outputsPerPlaintext();
      double[][] values = new double[requestTokens][layout.rank()];
      for (int t = 0; t < requestTokens; t++) {
        int g = firstToken[r] + t;
        double productScale = inputScales[g] * site.scale();
        for (int i = 0; i < layout.rank(); i++) {
          int p = i / layout.rowsPerPlaintext();
          int b = i % layout.rowsPerPlaintext();
          long m = residues[g][p * outputs + b];
          long centred = m > modulus / 2 ? m - modulus : m;
          values[t][i] = centred / productScale;
        }
      }
      long products = (long) requestTokens * site.weights().plaintextCount();
      boolean extracted = site.weights().extractsOutputs();
      results.add(
          new HeLoraResult(
              values,
              new OperationCounts(
                  requestTokens,
                  products,
                  products,
                  requestTokens,
                  extracted ? 0 : products,
                  extracted ? products * outputs : 0)));
    }
    decodeNanos.add(System.nanoTime() - decodeStart);
    return results;
  }

  /**
   * The decrypted output residues of every token (in [0, q)), token g belonging to request {@code
   * requestOf[g]}.
   */
  private long[][] encryptMultiplyDecrypt(
      Site[] sites, int[] requestOf, double[][] inputs, double[] inputScales) {
    int tokens = inputs.length;
    // Seeds are drawn in token order on this thread, so a seeded CSPRNG gives the same
    // ciphertexts whichever backend runs and however the expansion below is spread over threads.
    byte[] seeds = new byte[2 * tokens * Samplers.SEED_BYTES];
    random.nextBytes(seeds); // one CSPRNG call: token g's c1 seed, then its error seed
    long[][] messages = new long[tokens][];
    long[][] c1 = new long[tokens][];
    Modulus q = parameters.moduli().getFirst();
    int chunk = BackendPipeline.chunk(tokens);
    List<CompletableFuture<List<HostedLoraOutput>>> pending = new ArrayList<>();
    List<int[]> chunkStarts = new ArrayList<>();
    for (int from = 0; from < tokens; from += chunk) {
      int to = Math.min(tokens, from + chunk);
      IntStream range = IntStream.range(from, to);
      long prepareStart = System.nanoTime();
      (to - from >= PARALLEL_PREPARATION_TOKENS ? range.parallel() : range)
          .forEach(
              g -> {
                int at = 2 * g * Samplers.SEED_BYTES;
                byte[] c1Seed = Arrays.copyOfRange(seeds, at, at + Samplers.SEED_BYTES);
                byte[] errorSeed =
                    Arrays.copyOfRange(
                        seeds, at + Samplers.SEED_BYTES, at + 2 * Samplers.SEED_BYTES);
                long[] message =
                    CoefficientEncoder.encodeCoefficients(inputs[g], inputScales[g], parameters, 1)
                        .limb(0);
                long[] error = Samplers.gaussianFromSeed(parameters.ringDegree(), errorSeed);
                for (int i = 0; i < message.length; i++) {
                  message[i] = q.add(message[i], error[i] < 0 ? error[i] + q.value() : error[i]);
                }
                messages[g] = message;
                c1[g] = Encryptor.c1FromSeed(c1Seed, parameters, 1).limb(0);
                Arrays.fill(c1Seed, (byte) 0);
                Arrays.fill(errorSeed, (byte) 0);
              });
      encodeSampleNanos.add(System.nanoTime() - prepareStart);
      // One call per run of consecutive tokens of the same request within the chunk.
      List<HostedLoraCall> calls = new ArrayList<>();
      List<Integer> starts = new ArrayList<>();
      for (int a = from; a < to; ) {
        int b = a;
        while (b < to && requestOf[b] == requestOf[a]) {
          b++;
        }
        calls.add(
            new HostedLoraCall(
                sites[requestOf[a]].weights(),
                Arrays.copyOfRange(messages, a, b),
                Arrays.copyOfRange(c1, a, b)));
        starts.add(a);
        a = b;
      }
      chunkStarts.add(starts.stream().mapToInt(Integer::intValue).toArray());
      pending.add(
          chunk == tokens
              ? CompletableFuture.completedFuture(timedBackend(calls))
              : BackendPipeline.submit(() -> timedBackend(calls)));
    }
    Arrays.fill(seeds, (byte) 0);
    long[][] residues = new long[tokens][];
    for (int k = 0; k < pending.size(); k++) {
      List<HostedLoraOutput> outputs = BackendPipeline.join(pending.get(k));
      int[] starts = chunkStarts.get(k);
      for (int c = 0; c < outputs.size(); c++) {
        long[][] part = outputs.get(c).residues();
        System.arraycopy(part, 0, residues, starts[c], part.length);
      }
    }
    return residues;
  }

  private List<HostedLoraOutput> timedBackend(List<HostedLoraCall> calls) {
    long start = System.nanoTime();
    try {
      return backend.hostedLoraAll(calls);
    } finally {
      backendNanos.add(System.nanoTime() - start);
    }
  }

  /**
   * Time spent so far in each phase, over every call. With pipelined chunks (long prompts) the
   * phases overlap, so their sum can exceed the calls' wall time.
   */
  public HostedPhaseTimes phaseTimes() {
    return new HostedPhaseTimes(encodeSampleNanos.sum(), backendNanos.sum(), decodeNanos.sum());
  }

  /**
   * The smallest 128-bit secure parameters for inputs of {@code dimension} values: the smallest
   * ring with {@code N ≥ d} (at least 2^11) and one prime as wide as the HE Standard allows there,
   * capped at 60 bits: 50 bits at N = 2^11 ({@code ParameterPresets.HOSTED_LORA}, ADR 0033), 60
   * bits above. The encoding scale of the spec is unused: this operator derives its scales from the
   * data.
   *
   * @param dimension d, in [1, 2^16]
   */
  public static Parameters parametersFor(int dimension) {
    if (dimension < 1 || dimension > 1 << Parameters.MAX_LOG_N) {
      throw new IllegalArgumentException("dimension must be in [1, 65536], was " + dimension);
    }
    return HostedParameters.forLogN(
        Math.max(Parameters.MIN_LOG_N, 32 - Integer.numberOfLeadingZeros(dimension - 1)));
  }

  /** The parameters this operator runs with. */
  public Parameters parameters() {
    return parameters;
  }
}
