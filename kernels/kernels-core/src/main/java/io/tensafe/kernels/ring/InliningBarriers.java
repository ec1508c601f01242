package io.tensafe.kernels.ring;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Inlining barriers for the vector NTTs' passes. Each pass method is called through a non-constant
 * {@link MethodHandle} (kept in an instance field, which C2 does not treat as a constant), so that
 * C2 compiles each pass on its own. Called directly, the passes were inlined into their driver
 * until C2's node budget ran out; the vector operations past that point were then not inlined, so
 * their vectors were boxed on the heap: the inverse took 450 µs at N = 2^14 instead of about 80.
 */
public final class InliningBarriers {
  private InliningBarriers() {}

  /** A handle on {@code owner}'s pass method {@code (owner, long[], extra...) void}. */
  static MethodHandle find(
      MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?>... extra) {
    return find(lookup, owner, name, MethodType.methodType(void.class, long[].class, extra));
  }

  /** A handle on {@code owner}'s instance method {@code name} of {@code type}. */
  public static MethodHandle find(
      MethodHandles.Lookup lookup, Class<?> owner, String name, MethodType type) {
    try {
      return lookup.findVirtual(owner, name, type);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("missing loop " + name, e);
    }
  }

  /** What a loop threw, as an unchecked exception (errors are rethrown as they are). */
  public static RuntimeException failed(Throwable e) {
    if (e instanceof RuntimeException runtime) {
      return runtime;
    }
    if (e instanceof Error error) {
      throw error;
    }
    return new IllegalStateException("SIMD loop failed", e);
  }
}
