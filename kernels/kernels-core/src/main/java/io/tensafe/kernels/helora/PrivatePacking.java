package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerCodec;
import io.tensafe.kernels.protocol.AnswerPacking;
import io.tensafe.kernels.rlwe.RlweCodec;

/**
 * How private mode cuts inputs into chunks and packs answers (ADR 0032), as both parties compute it
 * from shapes alone. Every choice minimises {@code bytes + λ·switches} per token: bytes both ways,
 * and each key switch the node runs counted as {@code λ} bytes ({@link #switchCostBytes}), so a
 * switch is spent only where the whole answer it saves is worth more.
 *
 * <ul>
 *   <li>Round one never packs (ADR 0037): a key switch there would apply the client's Galois keys,
 *       whose errors the node cannot check, to what B later multiplies; each plaintext of A is its
 *       own answer and the check goes beside them. The group's input chunks c minimise {@code
 *       c·upload + Σ_sites (answers + check)}.
 *   <li>Round two packs a site's answers when a switch costs less than the switched answer it
 *       saves, and its share chunks minimise {@code c·upload + answers·answer + λ·switches}.
 * </ul>
 */
public final class PrivatePacking {
  /** System property that sets λ in bytes; see {@link #switchCostBytes}. */
  public static final String SWITCH_COST_PROPERTY = "tensafe.private.switch-cost-bytes";

  /**
   * λ by default: 32 KiB, about what one key switch at N = 4096 costs in time on a two-core machine
   * (0.6 ms, docs/benchmarks.md) at 350 Mbit/s.
   */
  public static final long DEFAULT_SWITCH_COST_BYTES = 32 << 10;

  private PrivatePacking() {}

  private static final long SWITCH_COST_BYTES =
      Long.getLong(SWITCH_COST_PROPERTY, DEFAULT_SWITCH_COST_BYTES);

  /**
   * λ: the bytes one key switch is worth, from {@link #SWITCH_COST_PROPERTY} when the JVM starts (0
   * packs everything the keys reach, a large value packs nothing that needs a switch). A node and
   * its clients must run with the same value, as they compute the same plan: the default, unless
   * benchmarking both in one process.
   */
  public static long switchCostBytes() {
    return SWITCH_COST_BYTES;
  }

  /** A's layout per chunk for inputs of d values in c chunks: rows the chunk's width apart. */
  public static CoefficientLayout aLayout(int dimension, int chunks, int rank, int ringDegree) {
    int width = new ChunkedLayout(dimension, chunks, rank, ringDegree).chunkWidth();
    return new CoefficientLayout(width, rank, ringDegree);
  }

  /** Round one's outputs: each plaintext of A its own answer, no key switch. */
  public static PackedOutputs roundOne(int dimension, int chunks, int rank, int ringDegree) {
    return new PackedOutputs(aLayout(dimension, chunks, rank, ringDegree), 1);
  }

  /** Round two's choice for a site: its share chunks and where its outputs go. */
  public record RoundTwo(int shareChunks, PackedOutputs outputs) {}

  /**
   * The input chunks of a group of sites reading one input of {@code dimension} values, the
   * cheapest by {@code c·upload + Σ_s (answers_s + check)}, the fewest chunks on a tie.
   */
  public static int inputChunks(int dimension, int[] ranks, Parameters p) {
    long upload = RlweCodec.uploadBytes(p);
    int best = 1;
    long bestCost = Long.MAX_VALUE;
    for (int c = 1; c <= Math.min(dimension, ChunkedLayout.MAX_CHUNKS); c++) {
      long cost = c * upload;
      for (int r : ranks) {
        PackedOutputs out = roundOne(dimension, c, r, p.ringDegree());
        for (int a = 0; a < out.answers(); a++) {
          cost += AnswerCodec.shareBytes(p, out.outputs(a));
        }
        cost += AnswerCodec.shareBytes(p, 1);
      }
      if (cost < bestCost) {
        best = c;
        bestCost = cost;
      }
    }
    return best;
  }

  /**
   * Round two of a site of rank r and {@code outputs} rows: share chunks (each at most {@link
   * SharedLoraNode#MAX_SHARE_WIDTH} shares) and packing, the cheapest by {@code c·upload + answers
   * + λ·switches}.
   */
  public static RoundTwo roundTwo(int rank, int outputs, Parameters p) {
    long upload = RlweCodec.uploadBytes(p);
    long lambda = switchCostBytes();
    int fewest = (rank + 1 + SharedLoraNode.MAX_SHARE_WIDTH - 1) / SharedLoraNode.MAX_SHARE_WIDTH;
    RoundTwo best = null;
    long bestCost = Long.MAX_VALUE;
    for (int c = fewest; c <= Math.min(rank + 1, ChunkedLayout.MAX_CHUNKS); c++) {
      for (boolean packed : new boolean[] {false, true}) {
        PackedOutputs out = roundTwoOutputs(rank, c, outputs, p.ringDegree(), packed);
        long cost = c * upload + lambda * out.switches();
        for (int a = 0; a < out.answers(); a++) {
          cost += AnswerCodec.switchedBytes(p, out.outputs(a));
        }
        if (cost < bestCost) {
          best = new RoundTwo(c, out);
          bestCost = cost;
        }
      }
    }
    return best;
  }

  /**
   * B's outputs for r + 1 shares in {@code chunks} chunks: packed, rows a power of two apart; or
   * not, rows the chunk's width apart.
   */
  public static PackedOutputs roundTwoOutputs(
      int rank, int chunks, int outputs, int ringDegree, boolean packed) {
    int width = new ChunkedLayout(rank + 1, chunks, outputs, ringDegree).chunkWidth();
    if (width > SharedLoraNode.MAX_SHARE_WIDTH) {
      throw new IllegalArgumentException(
          "a share chunk holds at most " + SharedLoraNode.MAX_SHARE_WIDTH + " shares");
    }
    if (!packed) {
      return new PackedOutputs(new CoefficientLayout(width, outputs, ringDegree), 1);
    }
    return PackedOutputs.whole(
        new CoefficientLayout(powerOfTwoAtLeast(width), outputs, ringDegree));
  }

  private static int powerOfTwoAtLeast(int width) {
    return AnswerPacking.slots(width);
  }
}
