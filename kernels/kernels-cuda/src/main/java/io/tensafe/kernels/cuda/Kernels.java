package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.HostedLoraWeights;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The loaded kernel functions, one typed launcher per kernel: each method passes exactly its
 * kernel's parameters, in the order and C types of {@code tensafe_kernels.cu} (a device pointer, a
 * {@code u64} from a {@code long}, an {@code int} or {@code long long}). The launch shapes mirror
 * the conventions at the top of that file: a tile is {@link #TILE} values in shared memory; degrees
 * above it first run their large-span stages in column kernels of R = n / TILE registers each.
 *
 * <p>The constants below are the {@code #define}s of the CUDA source; {@code KernelConstantsTest}
 * reads that source and fails when the two disagree.
 */
final class Kernels {
  /** Values per shared-memory tile ({@code TILE}). */
  static final int TILE = 2048;

  /** Threads of a tile kernel at the largest tile ({@code TILE_THREADS}). */
  static final int TILE_THREADS = TILE / 2;

  /**
   * Most coefficients the fused product-extract kernel reads per product ({@code
   * MAX_FUSED_OUTPUTS}); the same limit as {@link HostedLoraWeights#MAX_EXTRACTED_OUTPUTS}, above
   * which the CPU and GPU both take the inverse-NTT path.
   */
  static final int MAX_FUSED_OUTPUTS = HostedLoraWeights.MAX_EXTRACTED_OUTPUTS;

  /** Threads per block of the fused product-extract kernel ({@code FUSED_THREADS}). */
  static final int FUSED_THREADS = 256;

  /** Column kernels are compiled for R = 2, 4, ..., 2^{@value #COLUMN_KINDS}. */
  private static final int COLUMN_KINDS = 5;

  /** Largest ring degree with a compiled column kernel (R = 32). */
  static final int MAX_DEGREE = (1 << COLUMN_KINDS) * TILE;

  private static final int THREADS = 256;
  private static final int MAX_GRID = 1 << 20;

  private final CUfunction forwardTile;
  private final CUfunction inverseTile;
  private final CUfunction[] forwardColumns = new CUfunction[COLUMN_KINDS + 1];
  private final CUfunction[] inverseColumns = new CUfunction[COLUMN_KINDS + 1];
  private final CUfunction encrypt;
  private final CUfunction productExtract;
  private final CUfunction product;
  private final CUfunction gather;
  private final CUfunction counterUniform;
  private final CUfunction counterErrors;

  Kernels(CUmodule module) {
    forwardTile = function(module, "ntt_forward_tile");
    inverseTile = function(module, "ntt_inverse_tile");
    for (int k = 1; k <= COLUMN_KINDS; k++) {
      forwardColumns[k] = function(module, "ntt_forward_columns_" + (1 << k));
      inverseColumns[k] = function(module, "ntt_inverse_columns_" + (1 << k));
    }
    encrypt = function(module, "helora_encrypt");
    productExtract = function(module, "helora_product_extract");
    product = function(module, "helora_product");
    gather = function(module, "helora_gather");
    counterUniform = function(module, "counter_uniform");
    counterErrors = function(module, "counter_errors");
  }

  /**
   * Uniform residues of {@code tokens} tokens from {@code firstToken} on, {@code limbs} limbs each,
   * into {@code out[(t * limbs + l) * n + i]}, as {@code CounterSampler.uniform}; {@code moduli}
   * holds each limb's q and Barrett words (3 per limb), {@code key} the session key's 8 words.
   */
  void counterUniform(
      CUdeviceptr key,
      int firstToken,
      int tokens,
      int limbs,
      int n,
      CUdeviceptr moduli,
      CUdeviceptr out,
      CUstream stream) {
    launch(
        counterUniform,
        blocksFor((long) tokens * limbs * (n / 8)),
        THREADS,
        stream,
        ptr(key),
        i32(firstToken),
        i32(tokens),
        i32(limbs),
        i32(n),
        ptr(moduli),
        ptr(out));
  }

  /**
   * Signed errors of {@code tokens} tokens from {@code firstToken} on into {@code out[t * n + i]},
   * as {@code CounterSampler.errors}; {@code table} holds its cumulative table.
   */
  void counterErrors(
      CUdeviceptr key,
      int firstToken,
      int tokens,
      int n,
      CUdeviceptr table,
      CUdeviceptr out,
      CUstream stream) {
    launch(
        counterErrors,
        blocksFor((long) tokens * (n / 8)),
        THREADS,
        stream,
        ptr(key),
        i32(firstToken),
        i32(tokens),
        i32(n),
        ptr(table),
        ptr(out));
  }

  /** Forward NTT of {@code limbs} consecutive limbs at {@code data}, in place; output in [0, q). */
  void forward(CUdeviceptr data, DeviceTables t, int limbs, CUstream stream) {
    int n = t.degree();
    Pointer[] tables = {ptr(data), ptr(t.forward()), ptr(t.forwardShoup()), u64(t.modulus())};
    if (n > TILE) {
      launch(
          forwardColumns[columnKind(n)],
          blocksFor((long) limbs * TILE),
          THREADS,
          stream,
          join(tables, i32(limbs)));
    }
    int tile = Math.min(n, TILE);
    launch(
        forwardTile,
        limbs * (n / tile),
        Math.max(1, tile / 2),
        stream,
        join(tables, i32(n), i32(limbs)));
  }

  /** Inverse NTT (with n^-1) of {@code limbs} consecutive limbs, in place; output in [0, q). */
  void inverse(CUdeviceptr data, DeviceTables t, int limbs, CUstream stream) {
    int n = t.degree();
    Pointer[] tables = {ptr(data), ptr(t.inverse()), ptr(t.inverseShoup()), u64(t.modulus())};
    Pointer inverseDegree = u64(t.inverseDegree());
    Pointer inverseDegreeShoup = u64(t.inverseDegreeShoup());
    int tile = Math.min(n, TILE);
    launch(
        inverseTile,
        limbs * (n / tile),
        Math.max(1, tile / 2),
        stream,
        join(tables, i32(n), i32(limbs), inverseDegree, inverseDegreeShoup));
    if (n > TILE) {
      launch(
          inverseColumns[columnKind(n)],
          blocksFor((long) limbs * TILE),
          THREADS,
          stream,
          join(tables, i32(limbs), inverseDegree, inverseDegreeShoup));
    }
  }

  /**
   * Secret-key encryption in NTT form over {@code tokens} consecutive messages: {@code c0[t] =
   * message[t] - c1[t] * s}, in place over the transformed messages.
   */
  void encrypt(
      CUdeviceptr messages,
      CUdeviceptr c1,
      DeviceSite site,
      int n,
      int tokens,
      long q,
      CUstream s) {
    launch(
        encrypt,
        blocksFor((long) tokens * n),
        THREADS,
        s,
        ptr(messages),
        ptr(c1),
        ptr(site.key()),
        ptr(site.keyShoup()),
        i32(n),
        i32(tokens),
        u64(q));
  }

  /**
   * The fused ct x pt, decryption and extraction of {@code outputs} coefficients per (token,
   * plaintext), one block each: {@code out[t][p * outputs + b]}.
   *
   * @throws IllegalArgumentException if {@code outputs} is not in 1..{@link #MAX_FUSED_OUTPUTS}
   */
  void productExtract(
      CUdeviceptr c0,
      CUdeviceptr c1,
      DeviceSite site,
      CUdeviceptr out,
      Products g,
      CUstream stream) {
    int outputs = g.outputs();
    if (outputs < 1 || outputs > MAX_FUSED_OUTPUTS) {
      throw new IllegalArgumentException(
          "the fused kernel extracts 1.." + MAX_FUSED_OUTPUTS + " outputs, asked " + outputs);
    }
    launch(
        productExtract,
        g.tokens() * g.plaintexts(),
        FUSED_THREADS,
        stream,
        join(
            productOperands(c0, c1, site),
            ptr(site.weights()),
            ptr(site.weightsShoup()),
            ptr(out),
            i32(g.degree()),
            i32(g.plaintexts()),
            i32(outputs),
            u64(g.modulus())));
  }

  /** The decrypted products of every (token, plaintext): {@code products[(t * P + p) * n + i]}. */
  void product(
      CUdeviceptr c0,
      CUdeviceptr c1,
      DeviceSite site,
      CUdeviceptr products,
      Products g,
      CUstream stream) {
    launch(
        product,
        blocksFor((long) g.tokens() * g.plaintexts() * g.degree()),
        THREADS,
        stream,
        join(
            productOperands(c0, c1, site),
            ptr(products),
            i32(g.degree()),
            i32(g.plaintexts()),
            i32(g.tokens()),
            u64(g.modulus())));
  }

  /** {@code out[t][p * outputs + b] = products[t * P + p][positions[b]]}. */
  void gather(CUdeviceptr products, DeviceSite site, CUdeviceptr out, Products g, CUstream stream) {
    launch(
        gather,
        blocksFor((long) g.tokens() * g.plaintexts() * g.outputs()),
        THREADS,
        stream,
        ptr(products),
        ptr(site.positions()),
        ptr(out),
        i32(g.degree()),
        i32(g.plaintexts()),
        i32(g.outputs()),
        i32(g.tokens()));
  }

  /** The operands every product kernel starts with: the ciphertexts, plaintexts and key. */
  private static Pointer[] productOperands(CUdeviceptr c0, CUdeviceptr c1, DeviceSite site) {
    return new Pointer[] {
      ptr(c0),
      ptr(c1),
      ptr(site.plaintexts()),
      ptr(site.plaintextsShoup()),
      ptr(site.key()),
      ptr(site.keyShoup())
    };
  }

  private static Pointer[] join(Pointer[] head, Pointer... tail) {
    Pointer[] all = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  /**
   * The shape of one call's products: ring {@code degree} and {@code modulus}, {@code tokens} ×
   * {@code plaintexts} products, {@code outputs} coefficients read from each.
   */
  record Products(int degree, long modulus, int tokens, int plaintexts, int outputs) {}

  private static CUfunction function(CUmodule module, String name) {
    CUfunction function = new CUfunction();
    JCudaDriver.cuModuleGetFunction(function, module, name);
    return function;
  }

  /** log2(n / TILE): the index of the column kernels for degree n (TILE < n <= MAX_DEGREE). */
  private static int columnKind(int n) {
    return Integer.numberOfTrailingZeros(n / TILE);
  }

  private static Pointer ptr(CUdeviceptr p) {
    return Pointer.to(p);
  }

  private static Pointer u64(long v) {
    return Pointer.to(new long[] {v});
  }

  private static Pointer i32(int v) {
    return Pointer.to(new int[] {v});
  }

  private static void launch(
      CUfunction function, int grid, int block, CUstream stream, Pointer... parameters) {
    JCudaDriver.cuLaunchKernel(
        function, grid, 1, 1, block, 1, 1, 0, stream, Pointer.to(parameters), null);
  }

  private static int blocksFor(long count) {
    return (int) Math.max(1, Math.min(MAX_GRID, (count + THREADS - 1) / THREADS));
  }
}
