package io.tensafe.marketplace.paging;

import java.util.List;

/**
 * One page of a list: {@code items} of at most {@code size}, starting at {@code page · size}, out
 * of {@code total}.
 */
public record Page<T>(List<T> items, int page, int size, long total) {
  public static <T> Page<T> of(List<T> all, int page, int size) {
    int from = (int) Math.min(all.size(), (long) page * size);
    int to = Math.min(all.size(), from + size);
    return new Page<>(List.copyOf(all.subList(from, to)), page, size, all.size());
  }
}
