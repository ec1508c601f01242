package io.tensafe.kernels.cuda;

import java.util.HashMap;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The loaded kernel functions and how to launch them. The launch shapes mirror the conventions at
 * the top of {@code tensafe_kernels.cu}: a tile is {@link #TILE} values in shared memory; degrees
 * above it first run their large-span stages in column kernels of R = n / TILE registers each.
 */
final class Kernels {
  /** Values per shared-memory tile; must equal TILE in the CUDA source. */
  static final int TILE = 2048;

  /** Largest ring degree with a compiled column kernel (R = 32). */
  static final int MAX_DEGREE = 32 * TILE;

  private static final int THREADS = 256;
  private static final int MAX_GRID = 1 << 20;

  private final Map<String, CUfunction> functions = new HashMap<>();

  Kernels(CUmodule module) {
    for (String name : KernelImage.ENTRY_POINTS) {
      CUfunction function = new CUfunction();
      JCudaDriver.cuModuleGetFunction(function, module, name);
      functions.put(name, function);
    }
  }

  /** Forward NTT of {@code limbs} consecutive limbs at {@code data}, in place; output in [0, q). */
  void forward(CUdeviceptr data, DeviceTables t, int limbs, CUstream stream) {
    int n = t.degree();
    if (n > TILE) {
      launch(
          "ntt_forward_columns_" + n / TILE,
          blocksFor((long) limbs * TILE),
          THREADS,
          stream,
          data,
          t.forward(),
          t.forwardShoup(),
          t.modulus(),
          limbs);
    }
    int tile = Math.min(n, TILE);
    launch(
        "ntt_forward_tile",
        limbs * (n / tile),
        Math.max(1, tile / 2),
        stream,
        data,
        t.forward(),
        t.forwardShoup(),
        t.modulus(),
        n,
        limbs);
  }

  /** Inverse NTT (with n^-1) of {@code limbs} consecutive limbs, in place; output in [0, q). */
  void inverse(CUdeviceptr data, DeviceTables t, int limbs, CUstream stream) {
    int n = t.degree();
    int tile = Math.min(n, TILE);
    launch(
        "ntt_inverse_tile",
        limbs * (n / tile),
        Math.max(1, tile / 2),
        stream,
        data,
        t.inverse(),
        t.inverseShoup(),
        t.modulus(),
        n,
        limbs,
        t.inverseDegree(),
        t.inverseDegreeShoup());
    if (n > TILE) {
      launch(
          "ntt_inverse_columns_" + n / TILE,
          blocksFor((long) limbs * TILE),
          THREADS,
          stream,
          data,
          t.inverse(),
          t.inverseShoup(),
          t.modulus(),
          limbs,
          t.inverseDegree(),
          t.inverseDegreeShoup());
    }
  }

  /** A grid-stride launch over {@code count} elements. */
  void elementwise(String name, long count, CUstream stream, Object... args) {
    launch(name, blocksFor(count), THREADS, stream, args);
  }

  /**
   * Launches {@code name}; each argument is a device pointer, a {@code Long} (u64) or an {@code
   * Integer} (int), in the kernel's parameter order.
   */
  void launch(String name, int grid, int block, CUstream stream, Object... args) {
    Pointer[] parameters = new Pointer[args.length];
    for (int i = 0; i < args.length; i++) {
      parameters[i] =
          switch (args[i]) {
            case CUdeviceptr p -> Pointer.to(p);
            case Long v -> Pointer.to(new long[] {v});
            case Integer v -> Pointer.to(new int[] {v});
            default -> throw new IllegalArgumentException("unsupported kernel argument " + args[i]);
          };
    }
    JCudaDriver.cuLaunchKernel(
        functions.get(name), grid, 1, 1, block, 1, 1, 0, stream, Pointer.to(parameters), null);
  }

  private static int blocksFor(long count) {
    return (int) Math.max(1, Math.min(MAX_GRID, (count + THREADS - 1) / THREADS));
  }
}
