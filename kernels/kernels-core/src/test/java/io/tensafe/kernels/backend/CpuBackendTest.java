package io.tensafe.kernels.backend;

class CpuBackendTest extends HeBackendContractTest {
  private final HeBackend backend = new CpuBackend();

  @Override
  protected HeBackend backend() {
    return backend;
  }
}
