package io.tensafe.node.adapter;

import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.PreparedAdapter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.IntFunction;

/**
 * The adapter versions a node holds, within a memory budget, least recently used evicted first.
 *
 * <p>Hot-swap: each adapter id has a <em>current</em> version, the one a request that names only
 * the id gets. {@link #activate} loads a version and then makes it current; requests that already
 * resolved the previous version keep their {@link LoadedAdapter} and finish on it, since a loaded
 * adapter is immutable and eviction only drops the registry's reference. A version is loaded once
 * however many requests ask for it at the same time.
 *
 * <p>Thread-safe.
 */
public final class AdapterRegistry {
  private final AdapterSource source;
  private final io.tensafe.tgsp.peft.BaseModelShape shape;
  private final IntFunction<HeLoraOperator> operatorFor;
  private final long budgetBytes;
  private final LinkedHashMap<AdapterKey, LoadedAdapter> held =
      new LinkedHashMap<>(16, 0.75f, true);
  private final Map<String, AdapterKey> current = new ConcurrentHashMap<>();
  private final Map<AdapterKey, CompletableFuture<LoadedAdapter>> loading =
      new ConcurrentHashMap<>();
  private long heldBytes;
  private long evictions;

  /**
   * @param operatorFor the HE operator for an input width (sites are prepared with it)
   * @param budgetBytes the most adapter memory held, in bytes ({@link PreparedAdapter#bytes()}), ≥
   *     1
   */
  public AdapterRegistry(
      AdapterSource source,
      io.tensafe.tgsp.peft.BaseModelShape shape,
      IntFunction<HeLoraOperator> operatorFor,
      long budgetBytes) {
    if (budgetBytes < 1) {
      throw new IllegalArgumentException("the adapter memory budget must be positive");
    }
    this.source = source;
    this.shape = shape;
    this.operatorFor = operatorFor;
    this.budgetBytes = budgetBytes;
  }

  /**
   * The version a request gets: {@code version} if given, otherwise the id's current version.
   *
   * @throws UnknownAdapterException if no version is given and none is current, or the source has
   *     no such version
   */
  public LoadedAdapter resolve(String id, String version)
      throws IOException, UnknownAdapterException, AdapterRejectedException {
    if (version != null) {
      return load(new AdapterKey(id, version));
    }
    AdapterKey key = current.get(id);
    if (key == null) {
      throw new UnknownAdapterException(
          "adapter " + id + " has no active version on this node; name one as " + id + "@x.y.z");
    }
    return load(key);
  }

  /** Loads {@code key} if needed and makes it the id's current version. */
  public LoadedAdapter activate(AdapterKey key)
      throws IOException, UnknownAdapterException, AdapterRejectedException {
    LoadedAdapter loaded = load(key);
    current.put(key.id(), key);
    return loaded;
  }

  /** The held version of {@code key}, loading it from the source on a miss. */
  public LoadedAdapter load(AdapterKey key)
      throws IOException, UnknownAdapterException, AdapterRejectedException {
    synchronized (this) {
      LoadedAdapter hit = held.get(key);
      if (hit != null) {
        return hit;
      }
    }
    CompletableFuture<LoadedAdapter> mine = new CompletableFuture<>();
    CompletableFuture<LoadedAdapter> theirs = loading.putIfAbsent(key, mine);
    if (theirs != null) {
      return await(theirs);
    }
    try {
      LoadedAdapter loaded = read(key);
      hold(loaded);
      mine.complete(loaded);
      return loaded;
    } catch (Exception e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      loading.remove(key);
    }
  }

  private LoadedAdapter read(AdapterKey key)
      throws IOException, UnknownAdapterException, AdapterRejectedException {
    OpenedAdapter opened = source.open(key);
    LoraAdapter adapter = PeftAdapters.read(opened.folder(), shape);
    PreparedAdapter prepared;
    try {
      prepared = new PreparedAdapter(adapter, operatorFor);
    } catch (IllegalArgumentException e) {
      throw new AdapterRejectedException(key + " cannot be prepared: " + e.getMessage(), e);
    }
    if (prepared.bytes() > budgetBytes) {
      throw new AdapterRejectedException(
          key
              + " needs "
              + prepared.bytes()
              + " bytes, more than the node's adapter memory budget of "
              + budgetBytes);
    }
    return new LoadedAdapter(key, prepared, opened.privacy(), opened.privateBounds());
  }

  private synchronized void hold(LoadedAdapter loaded) {
    held.put(loaded.key(), loaded);
    heldBytes += loaded.prepared().bytes();
    var eldest = held.entrySet().iterator();
    while (heldBytes > budgetBytes && eldest.hasNext()) {
      Map.Entry<AdapterKey, LoadedAdapter> e = eldest.next();
      if (e.getKey().equals(loaded.key())) {
        continue;
      }
      heldBytes -= e.getValue().prepared().bytes();
      eldest.remove();
      evictions++;
    }
  }

  private static LoadedAdapter await(CompletableFuture<LoadedAdapter> f)
      throws IOException, UnknownAdapterException, AdapterRejectedException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while another request loaded the adapter", e);
    } catch (ExecutionException e) {
      switch (e.getCause()) {
        case IOException io -> throw io;
        case UnknownAdapterException u -> throw u;
        case AdapterRejectedException r -> throw r;
        case RuntimeException r -> throw r;
        default -> throw new IOException(e.getCause());
      }
    }
  }

  /** The versions held now, least recently used first. */
  public synchronized List<AdapterKey> held() {
    return new ArrayList<>(held.keySet());
  }

  /** The current version of {@code id}, if one was activated. */
  public Optional<AdapterKey> current(String id) {
    return Optional.ofNullable(current.get(id));
  }

  /** Bytes held now (≤ the budget). */
  public synchronized long heldBytes() {
    return heldBytes;
  }

  /** Versions evicted so far. */
  public synchronized long evictions() {
    return evictions;
  }
}
