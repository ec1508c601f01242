package io.tensafe.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.backend.HeBackendContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backend contract, bit for bit against the CPU reference, on the GPU. Skipped, with the
 * probe's reason as the visible skip message, where no GPU or no compiled kernels are present.
 */
@ExtendWith(RequiresCuda.class)
class CudaBackendContractTest extends HeBackendContractTest {
  private static CudaBackend backend;

  @BeforeAll
  static void openBackend() {
    backend = CudaBackend.open(2);
    System.out.println("CUDA contract suite on " + backend.describe());
  }

  @AfterAll
  static void closeBackend() {
    if (backend != null) {
      backend.close();
    }
  }

  @Override
  protected HeBackend backend() {
    return backend;
  }

  @Test
  void degreeAboveCompiledKernels_refusedWithReason() {
    var ntt = table(11, 54);
    assertEquals("cuda", backend.name());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                backend.tables(
                    io.tensafe.kernels.ring.NegacyclicNtt.of(
                        io.tensafe.kernels.ring.Modulus.of(
                            io.tensafe.kernels.ring.Primes.nttPrimes(60, 1 << 17, 1).getFirst()),
                        1 << 17)));
    assertEquals("the CUDA backend supports ring degrees up to 65536, was 131072", e.getMessage());
    assertEquals(2048, ntt.degree());
  }
}
