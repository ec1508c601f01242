package io.tensafe.kernels.cuda;

import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One stream and the buffers a call uses on it. A call holds a lane from start to finish, so calls
 * on different lanes run concurrently on the GPU and a lane's buffers are never shared.
 */
final class Lane {
  final CUstream stream = new CUstream();
  final PinnedBuffer staging = new PinnedBuffer();
  final DeviceBuffer first = new DeviceBuffer();
  final DeviceBuffer second = new DeviceBuffer();
  final DeviceBuffer third = new DeviceBuffer();
  final DeviceBuffer output = new DeviceBuffer();

  Lane() {
    JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING);
  }

  void synchronize() {
    JCudaDriver.cuStreamSynchronize(stream);
  }

  void free() {
    staging.free();
    first.free();
    second.free();
    third.free();
    output.free();
    JCudaDriver.cuStreamDestroy(stream);
  }
}
