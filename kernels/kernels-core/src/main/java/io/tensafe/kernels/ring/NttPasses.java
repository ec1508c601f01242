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
final class NttPasses {
  private NttPasses() {}

  /** A handle on {@code owner}'s pass method {@code (owner, long[], extra...) void}. */
  static MethodHandle find(
      MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?>... extra) {
    try {
      return lookup.findVirtual(
          owner, name, MethodType.methodType(void.class, long[].class, extra));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("missing NTT pass " + name, e);
    }
  }

  /** What a pass threw, as an unchecked exception (errors are rethrown as they are). */
  static RuntimeException failed(Throwable e) {
    if (e instanceof RuntimeException runtime) {
      return runtime;
    }
    if (e instanceof Error error) {
      throw error;
    }
    return new IllegalStateException("NTT pass failed", e);
  }
}
