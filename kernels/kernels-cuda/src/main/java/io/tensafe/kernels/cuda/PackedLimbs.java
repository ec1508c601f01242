package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a {@link LimbBatch} lies on the device: its limbs grouped by (prime, degree) in first-seen
 * order, each group contiguous so that one launch per group covers it. {@code order} lists the
 * batch's limb indices group by group; {@code totalWords} is the batch's size in 64-bit words.
 */
record PackedLimbs(List<PackedLimbs.Group> groups, int[] order, long totalWords) {

  /** One (prime, degree) group: its limb indices and its first word in the packed order. */
  record Group(NegacyclicNtt ntt, List<Integer> limbs, long offset) {
    /** Words in this group: limbs times degree. */
    long words() {
      return (long) limbs.size() * ntt.degree();
    }
  }

  private record TableKey(long modulus, int degree) {}

  /**
   * The packing of {@code batch}.
   *
   * @throws IllegalArgumentException if a limb's degree exceeds {@link Kernels#MAX_DEGREE}
   */
  static PackedLimbs of(LimbBatch batch) {
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
      Group group = new Group(tableOf.get(e.getKey()), e.getValue(), offset);
      groups.add(group);
      offset += group.words();
    }
    int[] order =
        groups.stream().flatMap(g -> g.limbs().stream()).mapToInt(Integer::intValue).toArray();
    return new PackedLimbs(List.copyOf(groups), order, offset);
  }

  /** Writes {@code rows} (one per limb of the batch) in packed order from word {@code start}. */
  void write(LongBuffer staging, long start, long[][] rows) {
    int at = Math.toIntExact(start);
    for (int k : order) {
      staging.put(at, rows[k]);
      at += rows[k].length;
    }
  }

  /** Reads rows back in the order {@link #write} wrote them. */
  void read(LongBuffer staging, long start, long[][] rows) {
    int at = Math.toIntExact(start);
    for (int k : order) {
      staging.get(at, rows[k]);
      at += rows[k].length;
    }
  }

  /**
   * @throws IllegalArgumentException if {@code degree} exceeds {@link Kernels#MAX_DEGREE}
   */
  static void requireSupported(int degree) {
    if (degree > Kernels.MAX_DEGREE) {
      throw new IllegalArgumentException(
          "the CUDA backend supports ring degrees up to " + Kernels.MAX_DEGREE + ", was " + degree);
    }
  }
}
