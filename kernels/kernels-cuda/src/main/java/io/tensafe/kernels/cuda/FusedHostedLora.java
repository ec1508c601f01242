package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.HostedLoraCall;
import io.tensafe.kernels.backend.HostedLoraOutput;
import io.tensafe.kernels.backend.HostedLoraWeights;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * Hosted HE-LoRA calls of one ring run as one unit on one lane: one upload of every token's message
 * and c1, one forward-NTT launch over all of them, then per call an encryption and a fused
 * product-decrypt-extract launch (or product, batched inverse NTT and gather), one download and one
 * synchronisation. Stateless apart from the backend's caches it is given; the caller holds the
 * lane.
 */
final class FusedHostedLora {
  /** From this many rows, staging copies use several threads. */
  private static final int PARALLEL_COPY_ROWS = 64;

  private final Kernels kernels;
  private final Function<NegacyclicNtt, DeviceTables> tables;
  private final Function<HostedLoraWeights, DeviceSite> sites;

  FusedHostedLora(
      Kernels kernels,
      Function<NegacyclicNtt, DeviceTables> tables,
      Function<HostedLoraWeights, DeviceSite> sites) {
    this.kernels = kernels;
    this.tables = tables;
    this.sites = sites;
  }

  /**
   * The ring every call shares.
   *
   * @throws IllegalArgumentException if the calls' rings differ or the degree is unsupported
   */
  static NegacyclicNtt sharedRing(List<HostedLoraCall> calls) {
    NegacyclicNtt ntt = calls.getFirst().weights().ntt();
    PackedLimbs.requireSupported(ntt.degree());
    for (HostedLoraCall call : calls) {
      NegacyclicNtt other = call.weights().ntt();
      if (other.degree() != ntt.degree() || other.modulus().value() != ntt.modulus().value()) {
        throw new IllegalArgumentException("fused hosted HE-LoRA calls must share one ring");
      }
    }
    return ntt;
  }

  /**
   * Runs {@code calls} (non-empty, all in {@code ntt}'s ring: {@link #sharedRing}) on {@code lane}.
   */
  List<HostedLoraOutput> run(Lane lane, NegacyclicNtt ntt, List<HostedLoraCall> calls) {
    int n = ntt.degree();
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
    DeviceTables t = tables.apply(ntt);
    LongBuffer staging = lane.staging.ensure(Math.max(2 * words, outputWords));
    for (int c = 0; c < count; c++) {
      putRows(staging, tokenOffset[c] * n, calls.get(c).messages());
      putRows(staging, words + tokenOffset[c] * n, calls.get(c).c1());
    }
    CUdeviceptr c0 = lane.first.ensure(words * Long.BYTES);
    CUdeviceptr c1 = lane.second.ensure(words * Long.BYTES);
    JCudaDriver.cuMemcpyHtoDAsync(c0, lane.staging.at(0), words * Long.BYTES, lane.stream);
    JCudaDriver.cuMemcpyHtoDAsync(c1, lane.staging.at(words), words * Long.BYTES, lane.stream);
    kernels.forward(c0, t, Math.toIntExact(allTokens), lane.stream);
    CUdeviceptr out = lane.output.ensure(outputWords * Long.BYTES);
    // Size the products buffer for the largest call first: growing it between launches on the
    // stream would free memory that queued kernels still use.
    long productWords = 0;
    for (HostedLoraCall call : calls) {
      if (!call.weights().extractsOutputs()) {
        productWords =
            Math.max(
                productWords, (long) call.messages().length * call.weights().plaintextCount() * n);
      }
    }
    if (productWords > 0) {
      lane.third.ensure(productWords * Long.BYTES);
    }
    for (int c = 0; c < count; c++) {
      HostedLoraWeights weights = calls.get(c).weights();
      int tokens = calls.get(c).messages().length;
      CUdeviceptr c0c = c0.withByteOffset(tokenOffset[c] * n * Long.BYTES);
      CUdeviceptr c1c = c1.withByteOffset(tokenOffset[c] * n * Long.BYTES);
      CUdeviceptr outc = out.withByteOffset(outputOffset[c] * Long.BYTES);
      DeviceSite site = sites.apply(weights);
      kernels.encrypt(c0c, c1c, site, n, tokens, t.modulus(), lane.stream);
      productsToOutputs(lane, t, site, weights, c0c, c1c, outc, tokens);
    }
    JCudaDriver.cuMemcpyDtoHAsync(lane.staging.at(0), out, outputWords * Long.BYTES, lane.stream);
    lane.synchronize();
    List<HostedLoraOutput> outputs = new ArrayList<>(count);
    for (int c = 0; c < count; c++) {
      HostedLoraWeights w = calls.get(c).weights();
      int tokens = calls.get(c).messages().length;
      long[][] rows = new long[tokens][w.plaintextCount() * w.outputsPerPlaintext()];
      readRows(staging, outputOffset[c], rows);
      long products = (long) tokens * w.plaintextCount();
      boolean extract = w.extractsOutputs();
      outputs.add(
          new HostedLoraOutput(
              rows, extract ? 0 : products, extract ? products * w.outputsPerPlaintext() : 0));
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
    Kernels.Products shape =
        new Kernels.Products(n, t.modulus(), tokens, plaintexts, weights.outputsPerPlaintext());
    if (weights.extractsOutputs()) {
      kernels.productExtract(c0, c1, site, out, shape, lane.stream);
      return;
    }
    CUdeviceptr products = lane.third.ensure((long) tokens * plaintexts * n * Long.BYTES);
    kernels.product(c0, c1, site, products, shape, lane.stream);
    kernels.inverse(products, t, tokens * plaintexts, lane.stream);
    kernels.gather(products, site, out, shape, lane.stream);
  }

  /**
   * Writes equal-length rows one after another from word {@code start}; large batches are copied by
   * several threads (absolute puts into disjoint ranges), since one thread's memory bandwidth
   * otherwise dominates the call.
   */
  private static void putRows(LongBuffer staging, long start, long[][] rows) {
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
}
