package io.tensafe.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.backend.HeBackendContractTest;
import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.Primes;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;
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
    NegacyclicNtt tooLarge =
        NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(60, 1 << 17, 1).getFirst()), 1 << 17);
    LimbBatch batch = new LimbBatch(List.of(tooLarge), new long[][] {new long[1 << 17]});
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> backend.forwardNttInPlace(batch));
    assertEquals("the CUDA backend supports ring degrees up to 65536, was 131072", e.getMessage());
  }

  @Test
  void residentNtt_forwardThenInverse_restoresTheData_andForwardMatchesTheCpu() {
    NegacyclicNtt ntt = table(13, 54);
    int limbs = 3;
    long[] original =
        new SplittableRandom(7).longs(limbs * 8192L, 0, ntt.modulus().value()).toArray();
    long[] forward = new long[original.length];
    long[] roundTrip = new long[original.length];
    long bytes = original.length * (long) Long.BYTES;
    backend.withResidentNtt(
        ntt,
        limbs,
        resident -> {
          JCudaDriver.cuMemcpyHtoD(resident.data(), Pointer.to(original), bytes);
          resident.forward();
          JCudaDriver.cuStreamSynchronize(resident.stream());
          JCudaDriver.cuMemcpyDtoH(Pointer.to(forward), resident.data(), bytes);
          resident.inverse();
          JCudaDriver.cuStreamSynchronize(resident.stream());
          JCudaDriver.cuMemcpyDtoH(Pointer.to(roundTrip), resident.data(), bytes);
        });
    assertArrayEquals(original, roundTrip);
    long[] expected = Arrays.copyOfRange(original, 8192, 2 * 8192);
    ntt.forwardInPlace(expected);
    assertArrayEquals(expected, Arrays.copyOfRange(forward, 8192, 2 * 8192));
  }
}
