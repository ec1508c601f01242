package io.tensafe.kernels.helora;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.backend.HeBackend;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
  /** Tokens per backend call when a batch is split to overlap host and backend work. */
  private static final int PIPELINE_CHUNK = 64;

  /** Measurement override of the chunk size ({@code 0}: never split); unset in production. */
  private static final int CHUNK_OVERRIDE = Integer.getInteger("tensafe.helora.chunk", -1);

  /** Runs backend calls of pipelined chunks; daemon threads, created as calls need them. */
  private static final ExecutorService BACKEND_CALLS =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().name("he-lora-backend-", 0).daemon().factory());

  /** Below this many tokens, preparing the encryptions on several threads does not pay. */
  private static final int PARALLEL_PREPARATION_TOKENS = 8;

  private final Parameters parameters;
  private final HeBackend backend;
  private final SecretKey secretKey;
  private final long[] secretKeyValues;
  private final long[] secretKeyShoup;
  private final SecureRandom random;
  private final double halfBudget;
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

  /**
   * Tokens per backend call: batches of up to 127 tokens are not split (measured on an H100: at 64
   * tokens, splitting cost more per call than the overlap saved); larger ones go in chunks of 64.
   */
  static int pipelineChunk(int tokens) {
    if (CHUNK_OVERRIDE >= 0) {
      return CHUNK_OVERRIDE == 0 ? tokens : Math.min(tokens, CHUNK_OVERRIDE);
    }
    return tokens < 2 * PIPELINE_CHUNK ? tokens : PIPELINE_CHUNK;
  }

  /** The chunk's output, rethrowing a backend failure as it was thrown. */
  private static HostedLoraOutput join(CompletableFuture<HostedLoraOutput> chunk) {
    try {
      return chunk.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error cause) {
        throw cause;
      }
      throw e;
    }
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
    if (!(prepared instanceof Site site) || site.owner() != this) {
      throw new IllegalArgumentException("site was prepared by another operator");
    }
    CoefficientLayout layout = site.layout();
    int tokens = inputs.length;
    double[] inputScales = new double[tokens];
    for (int t = 0; t < tokens; t++) {
      double largest = RowChecks.maxAbs(inputs[t], layout.dimension(), t);
      inputScales[t] = halfBudget / (largest > 0 ? largest : 1);
    }
    // Seeds are drawn in token order on this thread, so a seeded CSPRNG gives the same
    // ciphertexts whichever backend runs and however the expansion below is spread over threads.
    byte[] seeds = new byte[2 * tokens * Samplers.SEED_BYTES];
    random.nextBytes(seeds); // one CSPRNG call: token t's c1 seed, then its error seed
    byte[][] c1Seeds = new byte[tokens][];
    byte[][] errorSeeds = new byte[tokens][];
    for (int t = 0; t < tokens; t++) {
      int at = 2 * t * Samplers.SEED_BYTES;
      c1Seeds[t] = Arrays.copyOfRange(seeds, at, at + Samplers.SEED_BYTES);
      errorSeeds[t] =
          Arrays.copyOfRange(seeds, at + Samplers.SEED_BYTES, at + 2 * Samplers.SEED_BYTES);
    }
    Arrays.fill(seeds, (byte) 0);
    long[][] messages = new long[tokens][];
    long[][] c1 = new long[tokens][];
    Modulus q = parameters.moduli().getFirst();
    // Chunks pipeline the two halves: the backend works on one chunk while the CPU threads
    // encode and sample the next. Outputs do not depend on the chunking.
    int chunk = pipelineChunk(tokens);
    List<CompletableFuture<HostedLoraOutput>> chunks = new ArrayList<>();
    for (int from = 0; from < tokens; from += chunk) {
      int to = Math.min(tokens, from + chunk);
      IntStream range = IntStream.range(from, to);
      (to - from >= PARALLEL_PREPARATION_TOKENS ? range.parallel() : range)
          .forEach(
              t -> {
                long[] message =
                    CoefficientEncoder.encodeCoefficients(inputs[t], inputScales[t], parameters, 1)
                        .limb(0);
                long[] error = Samplers.gaussianFromSeed(parameters.ringDegree(), errorSeeds[t]);
                for (int i = 0; i < message.length; i++) {
                  message[i] = q.add(message[i], error[i] < 0 ? error[i] + q.value() : error[i]);
                }
                messages[t] = message;
                c1[t] = Encryptor.c1FromSeed(c1Seeds[t], parameters, 1).limb(0);
              });
      long[][] chunkMessages = Arrays.copyOfRange(messages, from, to);
      long[][] chunkC1 = Arrays.copyOfRange(c1, from, to);
      if (chunk == tokens) {
        chunks.add(
            CompletableFuture.completedFuture(
                backend.hostedLora(site.weights(), chunkMessages, chunkC1)));
      } else {
        chunks.add(
            CompletableFuture.supplyAsync(
                () -> backend.hostedLora(site.weights(), chunkMessages, chunkC1), BACKEND_CALLS));
      }
    }
    long[][] residues = new long[tokens][];
    long inverseNtts = 0;
    long extractions = 0;
    for (int k = 0; k < chunks.size(); k++) {
      HostedLoraOutput part = join(chunks.get(k));
      System.arraycopy(part.residues(), 0, residues, k * chunk, part.residues().length);
      inverseNtts += part.inverseNtts();
      extractions += part.extractions();
    }
    HostedLoraOutput output = new HostedLoraOutput(residues, inverseNtts, extractions);
    long modulus = q.value();
    int outputs = site.weights().outputsPerPlaintext();
    double[][] results = new double[tokens][layout.rank()];
    for (int t = 0; t < tokens; t++) {
      double productScale = inputScales[t] * site.scale();
      for (int i = 0; i < layout.rank(); i++) {
        int p = i / layout.rowsPerPlaintext();
        int b = i % layout.rowsPerPlaintext();
        long m = output.residues()[t][p * outputs + b];
        long centred = m > modulus / 2 ? m - modulus : m;
        results[t][i] = centred / productScale;
      }
    }
    long products = (long) tokens * site.weights().plaintextCount();
    return new HeLoraResult(
        results,
        new OperationCounts(
            tokens, products, products, tokens, output.inverseNtts(), output.extractions()));
  }

  /**
   * The smallest 128-bit secure parameters for inputs of {@code dimension} values: the smallest
   * ring with {@code N ≥ d} (at least 2^11) and one prime as wide as the HE Standard allows there,
   * capped at 60 bits: 54 bits at N = 2^11 ({@code ParameterPresets.HOSTED_LORA}), 60 bits above.
   * The encoding scale of the spec is unused: this operator derives its scales from the data.
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
