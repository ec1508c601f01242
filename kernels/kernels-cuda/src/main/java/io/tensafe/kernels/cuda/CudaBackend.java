package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.backend.HostedLoraCall;
import io.tensafe.kernels.backend.HostedLoraOutput;
import io.tensafe.kernels.backend.HostedLoraWeights;
import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.lang.ref.Cleaner;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.IntStream;
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

  /** From this many rows, staging copies use several threads. */
  private static final int PARALLEL_COPY_ROWS = 64;

  private final CUdevice device = new CUdevice();
  private final CUcontext context = new CUcontext();
  private final CUmodule module = new CUmodule();
  private final Kernels kernels;
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
    List<Group> groups = groups(batch);
    int[] order = packedOrder(groups);
    long total = totalWords(batch);
    withLane(
        lane -> {
          LongBuffer staging = lane.staging.ensure(total);
          put(staging, 0, batch.limbs(), order);
          CUdeviceptr data = lane.first.ensure(total * Long.BYTES);
          JCudaDriver.cuMemcpyHtoDAsync(data, lane.staging.at(0), total * Long.BYTES, lane.stream);
          for (Group g : groups) {
            DeviceTables t = tables(g.ntt());
            CUdeviceptr at = data.withByteOffset(g.offset() * Long.BYTES);
            if (forward) {
              kernels.forward(at, t, g.limbs().size(), lane.stream);
            } else {
              kernels.inverse(at, t, g.limbs().size(), lane.stream);
            }
          }
          JCudaDriver.cuMemcpyDtoHAsync(lane.staging.at(0), data, total * Long.BYTES, lane.stream);
          lane.synchronize();
          get(staging, 0, batch.limbs(), order);
        });
  }

  @Override
  public void multiplyInto(LimbBatch a, LimbBatch b, LimbBatch out) {
    pointwise("pointwise_multiply", a, b, null, out);
  }

  @Override
  public void multiplyAddInto(LimbBatch a, LimbBatch b, LimbBatch c, LimbBatch out) {
    pointwise("pointwise_multiply_add", a, b, c, out);
  }

  @Override
  public void addInto(LimbBatch a, LimbBatch b, LimbBatch out) {
    pointwise("pointwise_add", a, b, null, out);
  }

  private void pointwise(String kernel, LimbBatch a, LimbBatch b, LimbBatch c, LimbBatch out) {
    a.requireSameShape(b);
    a.requireSameShape(out);
    if (c != null) {
      a.requireSameShape(c);
    }
    List<Group> groups = groups(a);
    int[] order = packedOrder(groups);
    long total = totalWords(a);
    int operands = c == null ? 2 : 3;
    withLane(
        lane -> {
          LongBuffer staging = lane.staging.ensure(operands * total);
          put(staging, 0, a.limbs(), order);
          put(staging, total, b.limbs(), order);
          if (c != null) {
            put(staging, 2 * total, c.limbs(), order);
          }
          long bytes = total * Long.BYTES;
          CUdeviceptr x = lane.first.ensure(bytes);
          CUdeviceptr y = lane.second.ensure(bytes);
          CUdeviceptr z = c == null ? null : lane.third.ensure(bytes);
          JCudaDriver.cuMemcpyHtoDAsync(x, lane.staging.at(0), bytes, lane.stream);
          JCudaDriver.cuMemcpyHtoDAsync(y, lane.staging.at(total), bytes, lane.stream);
          if (z != null) {
            JCudaDriver.cuMemcpyHtoDAsync(z, lane.staging.at(2 * total), bytes, lane.stream);
          }
          for (Group g : groups) {
            long offset = g.offset() * Long.BYTES;
            long count = (long) g.limbs().size() * g.ntt().degree();
            Modulus q = g.ntt().modulus();
            CUdeviceptr gx = x.withByteOffset(offset);
            CUdeviceptr gy = y.withByteOffset(offset);
            switch (kernel) {
              case "pointwise_add" ->
                  kernels.elementwise(kernel, count, lane.stream, gx, gy, gx, count, q.value());
              case "pointwise_multiply" ->
                  kernels.elementwise(
                      kernel,
                      count,
                      lane.stream,
                      gx,
                      gy,
                      gx,
                      count,
                      q.value(),
                      q.barrettHigh(),
                      q.barrettLow());
              default ->
                  kernels.elementwise(
                      kernel,
                      count,
                      lane.stream,
                      gx,
                      gy,
                      z.withByteOffset(offset),
                      gx,
                      count,
                      q.value(),
                      q.barrettHigh(),
                      q.barrettLow());
            }
          }
          JCudaDriver.cuMemcpyDtoHAsync(lane.staging.at(0), x, bytes, lane.stream);
          lane.synchronize();
          get(staging, 0, out.limbs(), order);
        });
  }

  @Override
  public HostedLoraOutput hostedLora(HostedLoraWeights weights, long[][] messages, long[][] c1) {
    return hostedLoraAll(List.of(new HostedLoraCall(weights, messages, c1))).getFirst();
  }

  /**
   * All calls in one lane: one upload of every token's message and c1, one forward-NTT launch per
   * ring over all of them, then per call an encryption and a fused product-decrypt-extract launch
   * (or product, batched inverse NTT and gather), one download and one synchronisation.
   */
  @Override
  public List<HostedLoraOutput> hostedLoraAll(List<HostedLoraCall> calls) {
    if (calls.isEmpty()) {
      return List.of();
    }
    NegacyclicNtt ntt = calls.getFirst().weights().ntt();
    int n = ntt.degree();
    requireSupported(n);
    for (HostedLoraCall call : calls) {
      NegacyclicNtt other = call.weights().ntt();
      if (other.degree() != n || other.modulus().value() != ntt.modulus().value()) {
        throw new IllegalArgumentException("fused hosted HE-LoRA calls must share one ring");
      }
    }
    int count = calls.size();
    long[] tokenOffset = new long[count + 1];
    long[] outputOffset = new long[count + 1];
    for (int c = 0; c < count; c++) {
      HostedLoraWeights w = calls.get(c).weights();
      int tokens = calls.get(c).messages().length;
      tokenOffset[c + 1] = tokenOffset[c] + tokens;
      outputOffset[c + 1] =
          outputOffset[c] + (long) tokens * w.plaintextCount() * w.outputsPerPlaintext();
    }
    long allTokens = tokenOffset[count];
    long words = allTokens * n;
    long outputWords = outputOffset[count];
    long q = ntt.modulus().value();
    List<long[][]> residues = new ArrayList<>(count);
    withLane(
        lane -> {
          DeviceTables t = tables(ntt);
          LongBuffer staging = lane.staging.ensure(Math.max(2 * words, outputWords));
          for (int c = 0; c < count; c++) {
            put(staging, tokenOffset[c] * n, calls.get(c).messages());
            put(staging, words + tokenOffset[c] * n, calls.get(c).c1());
          }
          CUdeviceptr c0 = lane.first.ensure(words * Long.BYTES);
          CUdeviceptr c1 = lane.second.ensure(words * Long.BYTES);
          JCudaDriver.cuMemcpyHtoDAsync(c0, lane.staging.at(0), words * Long.BYTES, lane.stream);
          JCudaDriver.cuMemcpyHtoDAsync(
              c1, lane.staging.at(words), words * Long.BYTES, lane.stream);
          kernels.forward(c0, t, Math.toIntExact(allTokens), lane.stream);
          CUdeviceptr out = lane.output.ensure(outputWords * Long.BYTES);
          // Size the products buffer for the largest call first: growing it between launches on
          // the stream would free memory that queued kernels still use.
          long productWords = 0;
          for (HostedLoraCall call : calls) {
            if (!call.weights().extractsOutputs()) {
              productWords =
                  Math.max(
                      productWords,
                      (long) call.messages().length * call.weights().plaintextCount() * n);
            }
          }
          if (productWords > 0) {
            lane.third.ensure(productWords * Long.BYTES);
          }
          for (int c = 0; c < count; c++) {
            HostedLoraWeights weights = calls.get(c).weights();
            DeviceSite site = site(weights);
            int tokens = calls.get(c).messages().length;
            CUdeviceptr c0c = c0.withByteOffset(tokenOffset[c] * n * Long.BYTES);
            CUdeviceptr c1c = c1.withByteOffset(tokenOffset[c] * n * Long.BYTES);
            CUdeviceptr outc = out.withByteOffset(outputOffset[c] * Long.BYTES);
            kernels.elementwise(
                "helora_encrypt",
                (long) tokens * n,
                lane.stream,
                c0c,
                c1c,
                site.key(),
                site.keyShoup(),
                n,
                tokens,
                q);
            productsToOutputs(lane, t, site, weights, c0c, c1c, outc, tokens);
          }
          JCudaDriver.cuMemcpyDtoHAsync(
              lane.staging.at(0), out, outputWords * Long.BYTES, lane.stream);
          lane.synchronize();
          for (int c = 0; c < count; c++) {
            HostedLoraWeights w = calls.get(c).weights();
            long[][] rows =
                new long[calls.get(c).messages().length]
                    [w.plaintextCount() * w.outputsPerPlaintext()];
            readRows(staging, outputOffset[c], rows);
            residues.add(rows);
          }
        });
    List<HostedLoraOutput> outputs = new ArrayList<>(count);
    for (int c = 0; c < count; c++) {
      HostedLoraWeights w = calls.get(c).weights();
      long products = (long) calls.get(c).messages().length * w.plaintextCount();
      boolean extract = w.extractsOutputs();
      outputs.add(
          new HostedLoraOutput(
              residues.get(c),
              extract ? 0 : products,
              extract ? products * w.outputsPerPlaintext() : 0));
    }
    return outputs;
  }

  /** Product, decryption and output reading for one call's tokens, on the lane's stream. */
  private void productsToOutputs(
      Lane lane,
      DeviceTables t,
      DeviceSite site,
      HostedLoraWeights weights,
      CUdeviceptr c0,
      CUdeviceptr c1,
      CUdeviceptr out,
      int tokens) {
    int n = t.degree();
    int plaintexts = weights.plaintextCount();
    int outputs = weights.outputsPerPlaintext();
    long q = t.modulus();
    if (weights.extractsOutputs()) {
      kernels.launch(
          "helora_product_extract",
          tokens * plaintexts,
          256,
          lane.stream,
          c0,
          c1,
          site.plaintexts(),
          site.plaintextsShoup(),
          site.key(),
          site.keyShoup(),
          site.weights(),
          site.weightsShoup(),
          out,
          n,
          plaintexts,
          outputs,
          q);
      return;
    }
    long productWords = (long) tokens * plaintexts * n;
    CUdeviceptr products = lane.third.ensure(productWords * Long.BYTES);
    kernels.elementwise(
        "helora_product",
        productWords,
        lane.stream,
        c0,
        c1,
        site.plaintexts(),
        site.plaintextsShoup(),
        site.key(),
        site.keyShoup(),
        products,
        n,
        plaintexts,
        tokens,
        q);
    kernels.inverse(products, t, tokens * plaintexts, lane.stream);
    kernels.elementwise(
        "helora_gather",
        (long) tokens * plaintexts * outputs,
        lane.stream,
        products,
        site.positions(),
        out,
        n,
        plaintexts,
        outputs,
        tokens);
  }

  /** Runs {@code work} on a free lane with this backend's context current on the thread. */
  void withLane(Consumer<Lane> work) {
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
      work.accept(lane);
    } finally {
      lanes.add(lane);
    }
  }

  Kernels kernels() {
    return kernels;
  }

  DeviceTables tables(NegacyclicNtt ntt) {
    requireSupported(ntt.degree());
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

  private record Group(NegacyclicNtt ntt, List<Integer> limbs, long offset) {}

  /** Limbs grouped by (prime, degree) in first-seen order; offsets into the packed order. */
  private static List<Group> groups(LimbBatch batch) {
    Map<TableKey, List<Integer>> byTable = new LinkedHashMap<>();
    Map<TableKey, NegacyclicNtt> tableOf = new LinkedHashMap<>();
    for (int k = 0; k < batch.size(); k++) {
      NegacyclicNtt ntt = batch.tables().get(k);
      requireSupported(ntt.degree());
      TableKey key = new TableKey(ntt.modulus().value(), ntt.degree());
      byTable.computeIfAbsent(key, x -> new ArrayList<>()).add(k);
      tableOf.putIfAbsent(key, ntt);
    }
    List<Group> groups = new ArrayList<>();
    long offset = 0;
    for (Map.Entry<TableKey, List<Integer>> e : byTable.entrySet()) {
      groups.add(new Group(tableOf.get(e.getKey()), e.getValue(), offset));
      offset += (long) e.getValue().size() * e.getKey().degree();
    }
    return groups;
  }

  /** The batch's limb indices group by group: the order limbs are packed on the device. */
  private static int[] packedOrder(List<Group> groups) {
    return groups.stream().flatMap(g -> g.limbs().stream()).mapToInt(Integer::intValue).toArray();
  }

  /**
   * Writes rows {@code order[0]}, {@code order[1]}, ... one after another from word {@code start}.
   */
  private static void put(LongBuffer staging, long start, long[][] rows, int[] order) {
    int at = Math.toIntExact(start);
    for (int k : order) {
      staging.put(at, rows[k]);
      at += rows[k].length;
    }
  }

  /** Reads rows back in the order {@link #put(LongBuffer, long, long[][], int[])} wrote them. */
  private static void get(LongBuffer staging, long start, long[][] rows, int[] order) {
    int at = Math.toIntExact(start);
    for (int k : order) {
      staging.get(at, rows[k]);
      at += rows[k].length;
    }
  }

  /**
   * Writes equal-length rows one after another from word {@code start}; large batches are copied by
   * several threads (absolute puts into disjoint ranges), since one thread's memory bandwidth
   * otherwise dominates the call.
   */
  private static void put(LongBuffer staging, long start, long[][] rows) {
    int base = Math.toIntExact(start);
    int width = rows[0].length;
    IntStream range = IntStream.range(0, rows.length);
    (rows.length >= PARALLEL_COPY_ROWS ? range.parallel() : range)
        .forEach(t -> staging.put(base + t * width, rows[t]));
  }

  /** Reads consecutive rows from word {@code start} into {@code rows}. */
  private static void readRows(LongBuffer staging, long start, long[][] rows) {
    int at = Math.toIntExact(start);
    for (long[] row : rows) {
      staging.get(at, row);
      at += row.length;
    }
  }

  private static long totalWords(LimbBatch batch) {
    long total = 0;
    for (long[] limb : batch.limbs()) {
      total += limb.length;
    }
    return total;
  }

  private static void requireSupported(int degree) {
    if (degree > Kernels.MAX_DEGREE) {
      throw new IllegalArgumentException(
          "the CUDA backend supports ring degrees up to " + Kernels.MAX_DEGREE + ", was " + degree);
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
