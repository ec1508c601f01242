package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.backend.HostedLoraCall;
import io.tensafe.kernels.backend.HostedLoraOutput;
import io.tensafe.kernels.backend.HostedLoraWeights;
import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.ring.CounterSampler;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.lang.ref.Cleaner;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * The CUDA backend, through the JCuda driver API only. Results equal the CPU reference bit for bit
 * ({@code CudaBackendContractTest}).
 *
 * <p>Resources: the primary context of device 0; the kernels loaded once from the packaged fatbin;
 * NTT tables uploaded once per (prime, degree); hosted HE-LoRA sites uploaded once and kept on the
 * device while their {@link HostedLoraWeights} are reachable; {@code lanes} streams, each with its
 * own pinned staging and device buffers that grow and are reused. A call takes one lane for its
 * whole duration (blocking while all are busy), so up to {@code lanes} calls run concurrently.
 *
 * <p>Thread-safe. Limits: ring degrees up to 2^16 (the largest compiled column kernel); one call
 * moves at most 2^31 words through its staging buffer.
 */
public final class CudaBackend implements HeBackend, AutoCloseable {
  /** Streams, and so concurrent calls, by default. */
  public static final int DEFAULT_LANES = 4;

  private static final Cleaner CLEANER = Cleaner.create();

  private final CUdevice device = new CUdevice();
  private final CUcontext context = new CUcontext();
  private final CUmodule module = new CUmodule();
  private final Kernels kernels;
  private final FusedHostedLora fused;
  private final List<Lane> allLanes = new ArrayList<>();
  private final BlockingQueue<Lane> lanes;
  private final Map<TableKey, DeviceTables> tables = new ConcurrentHashMap<>();
  private final Map<HostedLoraWeights, DeviceSite> sites = new WeakHashMap<>();
  private final String description;
  private volatile boolean closed;

  private record TableKey(long modulus, int degree) {}

  private CudaBackend(KernelImage image, CudaAvailability.Available gpu, int laneCount) {
    JCudaDriver.cuDeviceGet(device, 0);
    JCudaDriver.cuDevicePrimaryCtxRetain(context, device);
    JCudaDriver.cuCtxSetCurrent(context);
    JCudaDriver.cuModuleLoadData(module, image.fatbin());
    kernels = new Kernels(module);
    fused = new FusedHostedLora(kernels, this::tables, this::site);
    lanes = new ArrayBlockingQueue<>(laneCount);
    for (int i = 0; i < laneCount; i++) {
      Lane lane = new Lane();
      allLanes.add(lane);
      lanes.add(lane);
    }
    description = gpu.describe() + ", kernels from nvcc " + image.nvccVersion();
  }

  /**
   * Opens the backend on device 0 with {@link #DEFAULT_LANES} streams.
   *
   * @throws IllegalStateException naming the reason when there is no usable GPU or this jar was
   *     built without nvcc
   */
  public static CudaBackend open() {
    return open(DEFAULT_LANES);
  }

  /** As {@link #open()}, with {@code lanes} (1..64) streams. */
  public static CudaBackend open(int lanes) {
    if (lanes < 1 || lanes > 64) {
      throw new IllegalArgumentException("lanes must be in 1..64, was " + lanes);
    }
    CudaAvailability availability = CudaProbe.result();
    if (!(availability instanceof CudaAvailability.Available gpu)) {
      throw new IllegalStateException(availability.describe());
    }
    KernelImage image =
        KernelImage.load()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "CUDA unavailable: "
                            + KernelImage.buildProperties().getProperty("reason", "no kernels")));
    return new CudaBackend(image, gpu, lanes);
  }

  @Override
  public String name() {
    return "cuda";
  }

  /** Device, driver and kernel build, for logs. */
  public String describe() {
    return description;
  }

  @Override
  public void forwardNttInPlace(LimbBatch batch) {
    transformInPlace(batch, true);
  }

  @Override
  public void inverseNttInPlace(LimbBatch batch) {
    transformInPlace(batch, false);
  }

  private void transformInPlace(LimbBatch batch, boolean forward) {
    PackedLimbs packed = PackedLimbs.of(batch);
    long bytes = packed.totalWords() * Long.BYTES;
    onLane(
        lane -> {
          LongBuffer staging = lane.staging.ensure(packed.totalWords());
          packed.write(staging, 0, batch.limbs());
          CUdeviceptr data = lane.first.ensure(bytes);
          JCudaDriver.cuMemcpyHtoDAsync(data, lane.staging.at(0), bytes, lane.stream);
          for (PackedLimbs.Group g : packed.groups()) {
            DeviceTables t = tables(g.ntt());
            CUdeviceptr at = data.withByteOffset(g.offset() * Long.BYTES);
            if (forward) {
              kernels.forward(at, t, g.limbs().size(), lane.stream);
            } else {
              kernels.inverse(at, t, g.limbs().size(), lane.stream);
            }
          }
          JCudaDriver.cuMemcpyDtoHAsync(lane.staging.at(0), data, bytes, lane.stream);
          lane.synchronize();
          packed.read(staging, 0, batch.limbs());
          return null;
        });
  }

  @Override
  public HostedLoraOutput hostedLora(HostedLoraWeights weights, long[][] messages, long[][] c1) {
    return hostedLoraAll(List.of(new HostedLoraCall(weights, messages, c1))).getFirst();
  }

  /** All calls in one lane, as {@link FusedHostedLora} describes. */
  @Override
  public List<HostedLoraOutput> hostedLoraAll(List<HostedLoraCall> calls) {
    if (calls.isEmpty()) {
      return List.of();
    }
    NegacyclicNtt ring = FusedHostedLora.sharedRing(calls);
    return onLane(lane -> fused.run(lane, ring, calls));
  }

  /**
   * The uniform polynomials of {@code tokens} tokens from {@code firstToken} on, sampled on the
   * GPU: {@code [t][l][i]} equals {@code CounterSampler.uniform(key, firstToken + t, l, moduli[l],
   * ...)} word for word.
   *
   * @param key the session key, {@link CounterSampler#KEY_BYTES} bytes
   * @param degree a multiple of 8
   */
  public long[][][] counterUniform(
      byte[] key, int firstToken, int tokens, List<Modulus> moduli, int degree) {
    requireCounterShape(key, tokens, degree);
    int limbs = moduli.size();
    long words = Math.toIntExact((long) tokens * limbs * degree); // one pinned buffer
    long[] modulusWords = new long[3 * limbs];
    for (int l = 0; l < limbs; l++) {
      modulusWords[3 * l] = moduli.get(l).value();
      modulusWords[3 * l + 1] = moduli.get(l).barrettHigh();
      modulusWords[3 * l + 2] = moduli.get(l).barrettLow();
    }
    return onLane(
        lane -> {
          CUdeviceptr keyWords = upload(lane.first, keyWords(key), lane);
          CUdeviceptr moduliOnDevice = upload(lane.second, modulusWords, lane);
          CUdeviceptr out = lane.output.ensure(words * Long.BYTES);
          kernels.counterUniform(
              keyWords, firstToken, tokens, limbs, degree, moduliOnDevice, out, lane.stream);
          LongBuffer staging = lane.staging.ensure(words);
          JCudaDriver.cuMemcpyDtoHAsync(lane.staging.at(0), out, words * Long.BYTES, lane.stream);
          lane.synchronize();
          long[][][] result = new long[tokens][limbs][degree];
          for (int t = 0; t < tokens; t++) {
            for (int l = 0; l < limbs; l++) {
              staging.get((t * limbs + l) * degree, result[t][l]);
            }
          }
          return result;
        });
  }

  /**
   * The error polynomials of {@code tokens} tokens from {@code firstToken} on, sampled on the GPU:
   * {@code [t]} equals {@code CounterSampler.errors(key, firstToken + t, degree)} word for word.
   *
   * @param degree a multiple of 8
   */
  public long[][] counterErrors(byte[] key, int firstToken, int tokens, int degree) {
    requireCounterShape(key, tokens, degree);
    long words = Math.toIntExact((long) tokens * degree); // one pinned buffer
    return onLane(
        lane -> {
          CUdeviceptr keyWords = upload(lane.first, keyWords(key), lane);
          CUdeviceptr table = upload(lane.second, CounterSampler.gaussianTable(), lane);
          CUdeviceptr out = lane.output.ensure(words * Long.BYTES);
          kernels.counterErrors(keyWords, firstToken, tokens, degree, table, out, lane.stream);
          LongBuffer staging = lane.staging.ensure(words);
          JCudaDriver.cuMemcpyDtoHAsync(lane.staging.at(0), out, words * Long.BYTES, lane.stream);
          lane.synchronize();
          long[][] result = new long[tokens][degree];
          for (int t = 0; t < tokens; t++) {
            staging.get(t * degree, result[t]);
          }
          return result;
        });
  }

  private static void requireCounterShape(byte[] key, int tokens, int degree) {
    if (key.length != CounterSampler.KEY_BYTES || tokens < 1 || degree < 8 || degree % 8 != 0) {
      throw new IllegalArgumentException(
          "a 32-byte key, at least one token and a degree that is a multiple of 8 are needed");
    }
  }

  /** The key's 8 little-endian words, two to a long, as the kernels read them. */
  private static long[] keyWords(byte[] key) {
    int[] words = CounterSampler.keyWords(key);
    long[] packed = new long[4];
    for (int i = 0; i < 4; i++) {
      packed[i] = (words[2 * i] & 0xffffffffL) | (long) words[2 * i + 1] << 32;
    }
    return packed;
  }

  /** Copies {@code words} into {@code buffer} through the lane's staging memory. */
  private static CUdeviceptr upload(DeviceBuffer buffer, long[] words, Lane lane) {
    CUdeviceptr device = buffer.ensure((long) words.length * Long.BYTES);
    LongBuffer staging = lane.staging.ensure(words.length);
    staging.put(0, words);
    JCudaDriver.cuMemcpyHtoDAsync(
        device, lane.staging.at(0), (long) words.length * Long.BYTES, lane.stream);
    lane.synchronize(); // the staging memory is reused next
    return device;
  }

  /**
   * Runs {@code work} on a lane with a device buffer of {@code limbs} limbs under {@code ntt}, for
   * device-resident measurements; the lane is held until {@code work} returns.
   *
   * @throws IllegalArgumentException if {@code limbs} is not positive or the degree is unsupported
   */
  public void withResidentNtt(NegacyclicNtt ntt, int limbs, Consumer<ResidentNtt> work) {
    if (limbs < 1) {
      throw new IllegalArgumentException("limbs must be positive, was " + limbs);
    }
    PackedLimbs.requireSupported(ntt.degree());
    onLane(
        lane -> {
          // Uploading tables allocates device memory: it needs the context onLane makes current.
          DeviceTables t = tables(ntt);
          CUdeviceptr data = lane.first.ensure((long) limbs * ntt.degree() * Long.BYTES);
          work.accept(new ResidentNtt(kernels, t, data, lane.stream, limbs));
          lane.synchronize();
          return null;
        });
  }

  /** Runs {@code work} on a free lane with this backend's context current on the thread. */
  private <T> T onLane(Function<Lane, T> work) {
    if (closed) {
      throw new IllegalStateException("the CUDA backend is closed");
    }
    Lane lane;
    try {
      lane = lanes.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a CUDA stream", e);
    }
    try {
      JCudaDriver.cuCtxSetCurrent(context);
      return work.apply(lane);
    } finally {
      lanes.add(lane);
    }
  }

  private DeviceTables tables(NegacyclicNtt ntt) {
    PackedLimbs.requireSupported(ntt.degree());
    return tables.computeIfAbsent(
        new TableKey(ntt.modulus().value(), ntt.degree()), key -> DeviceTables.upload(ntt));
  }

  private DeviceSite site(HostedLoraWeights weights) {
    synchronized (sites) {
      DeviceSite site = sites.get(weights);
      if (site == null) {
        DeviceSite uploaded = DeviceSite.upload(weights);
        sites.put(weights, uploaded);
        CLEANER.register(weights, () -> freeSite(uploaded));
        site = uploaded;
      }
      return site;
    }
  }

  private void freeSite(DeviceSite site) {
    synchronized (sites) {
      if (!closed) {
        JCudaDriver.cuCtxSetCurrent(context);
        site.free();
      }
    }
  }

  /** Frees every device and pinned allocation and releases the context. Idempotent. */
  @Override
  public void close() {
    synchronized (sites) {
      if (closed) {
        return;
      }
      closed = true;
      JCudaDriver.cuCtxSetCurrent(context);
      JCudaDriver.cuCtxSynchronize();
      for (DeviceSite site : sites.values()) {
        site.free();
      }
      sites.clear();
    }
    for (DeviceTables t : tables.values()) {
      t.free();
    }
    tables.clear();
    for (Lane lane : allLanes) {
      lane.free();
    }
    JCudaDriver.cuModuleUnload(module);
    JCudaDriver.cuDevicePrimaryCtxRelease(device);
  }

  @Override
  public String toString() {
    return "CudaBackend[" + description + "]";
  }
}
