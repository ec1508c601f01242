package io.tensafe.node.runtime;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * The loops that compute {@code y = x·Wᵀ} over a {@link Bf16Matrix}'s two-byte values: {@link
 * Bf16VectorLoops} (the JDK's Vector API on the machine's preferred width) or {@link
 * Bf16ScalarLoops} (plain Java, the fallback). Both widen each value exactly to F32 and sum in F32;
 * they differ in summation order only.
 *
 * <p>The choice is made once per JVM from the system property {@value #PROPERTY}: {@code auto} (the
 * default) takes the vector loops when the {@code jdk.incubator.vector} module is in the boot layer
 * (the project's scripts, images and test runs start the JVM with {@code --add-modules
 * jdk.incubator.vector}), else the scalar ones with one warning in the log; {@code scalar} and
 * {@code vector} force one ({@code vector} without the module is an error, not a silent fallback).
 * As kernels-core's {@code NttImplementation} does for the NTT.
 *
 * <p>Contract for {@link #rowsInto}: rows {@code [from, to)} of {@code y} are written for every
 * token, and nothing else of {@code y}; {@code x} is only read. Calls on disjoint row ranges may
 * run concurrently on the same arguments.
 */
sealed interface Bf16Loops permits Bf16VectorLoops, Bf16ScalarLoops {
  /** System property that chooses the loops: {@code auto}, {@code scalar}, {@code vector}. */
  String PROPERTY = "tensafe.node.bf16-loops";

  /** The JDK module the vector loops need at run time. */
  String VECTOR_MODULE = "jdk.incubator.vector";

  /**
   * {@code x} ({@code tokens} rows of {@code columns}) in the column order {@link #rowsInto} reads:
   * the vector loops' order (see {@link Bf16VectorLoops}), or {@code x} itself.
   */
  float[] prepare(float[] x, int tokens, int columns);

  /**
   * {@code y[t·rows + r] = Σ_c W[r, c]·x[t, c]} in F32 for {@code r} in {@code [from, to)} and
   * every token {@code t}.
   *
   * @param w the matrix's values: {@code rows × columns} BF16, row-major, little-endian
   * @param prepared {@code x} as {@link #prepare} returned it
   */
  void rowsInto(
      MemorySegment w,
      int rows,
      int columns,
      float[] prepared,
      int tokens,
      int from,
      int to,
      float[] y);

  /** F32 lanes one vector holds: 16 with AVX-512, 8 with AVX2, 1 for the scalar loops. */
  int lanes();

  /** These loops in words, for logs and benchmark rows: {@code "vector, 16 lanes"}, "scalar". */
  default String describe() {
    return this instanceof Bf16ScalarLoops ? "scalar" : "vector, " + lanes() + " lanes";
  }

  /** The loops this JVM's setting chooses (made once). */
  static Bf16Loops chosen() {
    return Chosen.VALUE;
  }

  /** Whether this JVM's setting chose the vector loops (the vector module is loaded). */
  static boolean vectorsChosen() {
    return chosen() instanceof Bf16VectorLoops;
  }

  /** The BF16 value {@code bits} (the low 16 bits) widened to F32: exact. */
  static float widen(short bits) {
    return Float.intBitsToFloat((bits & 0xFFFF) << 16);
  }

  /** Holder: the choice is made at first use, not when the interface loads. */
  final class Chosen {
    static final Bf16Loops VALUE = resolve(System.getProperty(PROPERTY, "auto"));

    private Chosen() {}

    static Bf16Loops resolve(String setting) {
      boolean module = ModuleLayer.boot().findModule(VECTOR_MODULE).isPresent();
      switch (setting.toLowerCase(Locale.ROOT)) {
        case "scalar":
          return new Bf16ScalarLoops();
        case "vector":
          if (!module) {
            throw new IllegalStateException(
                PROPERTY
                    + "=vector, but the "
                    + VECTOR_MODULE
                    + " module is not loaded: start the JVM with --add-modules "
                    + VECTOR_MODULE);
          }
          return new Bf16VectorLoops();
        case "auto":
          if (!module) {
            System.getLogger(Bf16Loops.class.getName())
                .log(
                    System.Logger.Level.WARNING,
                    "the "
                        + VECTOR_MODULE
                        + " module is not loaded, so BF16 weight products run scalar (several"
                        + " times slower); start the JVM with --add-modules "
                        + VECTOR_MODULE);
            return new Bf16ScalarLoops();
          }
          return new Bf16VectorLoops();
        default:
          throw new IllegalStateException(
              PROPERTY + " must be auto, scalar or vector, was '" + setting + "'");
      }
    }
  }
}
