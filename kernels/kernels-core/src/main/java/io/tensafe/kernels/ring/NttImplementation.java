package io.tensafe.kernels.ring;

import java.util.Locale;

/**
 * Which loops run {@link NegacyclicNtt}'s butterflies. Both give the same reduced words (lazy ones
 * congruent, in their stated ranges), so the choice changes speed only.
 *
 * <p>The choice is made once per JVM from the system property {@value #PROPERTY}: {@code auto} (the
 * default) picks {@link #VECTOR} when the {@value #VECTOR_MODULE} module is in the boot layer
 * (start the JVM with {@code --add-modules jdk.incubator.vector}; the project's scripts and test
 * runs do) and a vector holds at least four 64-bit lanes, else {@link #SCALAR} with one warning in
 * the log; {@code scalar} and {@code vector} force one ({@code vector} without the module is an
 * error, not a silent fallback). Rings smaller than two vectors always run scalar.
 */
public enum NttImplementation {
  /** Plain Java loops, one butterfly at a time (the reference). */
  SCALAR,
  /**
   * The JDK's Vector API on the machine's preferred SIMD width: doubles with fused multiply-adds
   * for primes below 2^50, 64-bit words above.
   */
  VECTOR;

  /**
   * System property that chooses the implementation: {@code auto}, {@code scalar}, {@code vector}.
   */
  public static final String PROPERTY = "tensafe.kernels.ntt";

  /** The JDK module the vector loops need at run time. */
  public static final String VECTOR_MODULE = "jdk.incubator.vector";

  private static final int MIN_LANES = 4;

  /** The implementation this JVM's setting asks for, before the per-ring size check. */
  static NttImplementation configured() {
    return Configured.VALUE;
  }

  /**
   * This JVM's choice in words, for start-up logs: {@code "vector, 8 lanes (fma-double below 2^50,
   * int64 above)"} or {@code "scalar"} (the reason for scalar under {@code auto} is logged when the
   * choice is made).
   */
  public static String describeConfigured() {
    return configured() == VECTOR
        ? "vector, " + VectorNtt.lanes() + " lanes (fma-double below 2^50, int64 above)"
        : "scalar";
  }

  /**
   * Whether this JVM runs fused multiply-adds in hardware (HotSpot's {@code UseFMA}, on by default
   * wherever the CPU has FMA3: every AVX2 server CPU of the last decade). Without it the JDK
   * computes each {@code fma} exactly in software, hundreds of times slower, so the vector loops
   * stay on 64-bit words ({@link VectorNtt}) for every prime. A runtime without the {@code
   * jdk.management} module (the device package's) cannot tell; it is assumed to have FMA.
   */
  static boolean fmaInHardware() {
    return FmaSupport.PRESENT;
  }

  private static final class FmaSupport {
    static final boolean PRESENT = read();

    private static boolean read() {
      try {
        Class<?> beanType = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
        Object bean =
            java.lang.management.ManagementFactory.getPlatformMXBean(
                beanType.asSubclass(java.lang.management.PlatformManagedObject.class));
        Object option = beanType.getMethod("getVMOption", String.class).invoke(bean, "UseFMA");
        return Boolean.parseBoolean(
            (String) option.getClass().getMethod("getValue").invoke(option));
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        return true;
      }
    }
  }

  /** Whether the vector module is in the boot layer, so {@link VectorNtt} can load. */
  static boolean vectorModulePresent() {
    return ModuleLayer.boot().findModule(VECTOR_MODULE).isPresent();
  }

  private static final class Configured {
    static final NttImplementation VALUE = resolve(System.getProperty(PROPERTY, "auto"));

    private static NttImplementation resolve(String setting) {
      switch (setting.toLowerCase(Locale.ROOT)) {
        case "scalar":
          return SCALAR;
        case "vector":
          if (!vectorModulePresent()) {
            throw new IllegalStateException(
                PROPERTY
                    + "=vector, but the "
                    + VECTOR_MODULE
                    + " module is not loaded: start the JVM with --add-modules "
                    + VECTOR_MODULE);
          }
          return VECTOR;
        case "auto":
          if (!vectorModulePresent()) {
            warn(
                "the "
                    + VECTOR_MODULE
                    + " module is not loaded, so the NTT runs scalar (about 3 times slower);"
                    + " start the JVM with --add-modules "
                    + VECTOR_MODULE);
            return SCALAR;
          }
          if (VectorNtt.lanes() < MIN_LANES) {
            warn(
                "this machine's SIMD vectors hold "
                    + VectorNtt.lanes()
                    + " 64-bit lanes (fewer than "
                    + MIN_LANES
                    + "), so the NTT runs scalar");
            return SCALAR;
          }
          return VECTOR;
        default:
          throw new IllegalStateException(
              PROPERTY + " must be auto, scalar or vector, was '" + setting + "'");
      }
    }

    private static void warn(String message) {
      System.getLogger(NegacyclicNtt.class.getName()).log(System.Logger.Level.WARNING, message);
    }
  }
}
