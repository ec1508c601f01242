package io.tensafe.node.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.HeOperators;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.PreparedAdapter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdapterRegistryTest {
  @TempDir Path root;
  final AtomicInteger opens = new AtomicInteger();
  long oneAdapterBytes;

  @BeforeEach
  void writeThreeVersions() throws Exception {
    for (int v = 1; v <= 3; v++) {
      LoraAdapter a = LoraAdapter.randomForAttention(ModelShape.TINY, 4, 2.0, 0.1, v);
      PeftAdapters.write(a, "tiny", root.resolve("qa").resolve(v + ".0.0"));
      oneAdapterBytes = new PreparedAdapter(a, new HeOperators(new CpuBackend())).bytes();
    }
  }

  private AdapterRegistry registry(long budget) {
    LocalAdapterSource local = new LocalAdapterSource(root);
    AdapterSource counting =
        new AdapterSource() {
          @Override
          public OpenedAdapter open(AdapterKey key) throws UnknownAdapterException {
            opens.incrementAndGet();
            return local.open(key);
          }

          @Override
          public String describe() {
            return "counting";
          }
        };
    return new AdapterRegistry(
        counting, ModelShape.TINY.adapterShape(), new HeOperators(new CpuBackend()), budget);
  }

  @Test
  void budget_evictsTheLeastRecentlyUsed() throws Exception {
    AdapterRegistry r = registry(2 * oneAdapterBytes);
    AdapterKey v1 = new AdapterKey("qa", "1.0.0");
    AdapterKey v2 = new AdapterKey("qa", "2.0.0");
    AdapterKey v3 = new AdapterKey("qa", "3.0.0");
    r.load(v1);
    r.load(v2);
    r.load(v1); // v2 is now the least recently used
    r.load(v3);
    assertEquals(List.of(v1, v3), r.held());
    assertEquals(1, r.evictions());
    assertTrue(r.heldBytes() <= 2 * oneAdapterBytes);
    assertEquals(3, opens.get());
  }

  @Test
  void anAdapterLargerThanTheBudget_isRejected() {
    AdapterRegistry r = registry(oneAdapterBytes - 1);
    AdapterRejectedException e =
        assertThrows(AdapterRejectedException.class, () -> r.load(new AdapterKey("qa", "1.0.0")));
    assertTrue(e.getMessage().contains("memory budget"), e.getMessage());
  }

  @Test
  void concurrentRequests_loadAVersionOnce() throws Exception {
    AdapterRegistry r = registry(1L << 30);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<LoadedAdapter>> all = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        all.add(pool.submit(() -> r.load(new AdapterKey("qa", "2.0.0"))));
      }
      LoadedAdapter first = all.getFirst().get();
      for (Future<LoadedAdapter> f : all) {
        assertSame(first, f.get());
      }
    } finally {
      pool.shutdown();
    }
    assertEquals(1, opens.get());
  }

  @Test
  void activate_switchesTheCurrentVersion_earlierResolutionsKeepTheirs() throws Exception {
    AdapterRegistry r = registry(1L << 30);
    assertThrows(UnknownAdapterException.class, () -> r.resolve("qa", null));
    r.activate(new AdapterKey("qa", "1.0.0"));
    LoadedAdapter before = r.resolve("qa", null);
    r.activate(new AdapterKey("qa", "2.0.0"));
    assertEquals("1.0.0", before.key().version());
    assertEquals("2.0.0", r.resolve("qa", null).key().version());
    assertEquals("3.0.0", r.resolve("qa", "3.0.0").key().version());
  }
}
