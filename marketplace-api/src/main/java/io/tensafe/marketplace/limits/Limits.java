package io.tensafe.marketplace.limits;

import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The limits this replica enforces: an API key's requests per minute and requests in flight, and
 * each node's concurrency, counted for every replica together ({@link LimitsConfig.Scope#SHARED},
 * the default) or in this process ({@link LimitsConfig.Scope#INSTANCE}). In the shared scope this
 * replica renews its leases every third of the lease time, so what it holds lapses soon after it
 * dies (ADR 0020).
 */
@ApplicationScoped
public class Limits {
  @Inject LimitsConfig config;
  @Inject KeyRateConfig keyRate;

  @Inject EntityManager em;
  @Inject io.agroal.api.AgroalDataSource dataSource;
  @Inject jakarta.transaction.TransactionManager transactions;

  /** This replica's id in the leases it holds. */
  private final UUID replica = UUID.randomUUID();

  private volatile Chosen chosen;
  private ScheduledExecutorService renewer;

  private record Chosen(
      LimitsConfig.Scope scope, InstanceRateLimiter rate, SlotLimiter slots, SharedSlots shared) {}

  void start(@Observes StartupEvent event) {
    use(config.scope());
    renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("limit-leases").daemon().unstarted(r));
    long period = Math.max(1, config.leaseTtl().toMillis() / 3);
    renewer.scheduleWithFixedDelay(this::renewLogged, period, period, TimeUnit.MILLISECONDS);
  }

  void stop(@Observes ShutdownEvent event) {
    if (renewer != null) {
      renewer.shutdownNow();
    }
  }

  /**
   * Switches where the limits are counted from now on, for benchmarks that compare the two scopes
   * in one run. Leases are given back to the scope in force when they are given back, so switch
   * only while no request is in flight (a shared lease given back to the instance scope would stay
   * until its replica stops renewing it).
   */
  public synchronized void use(LimitsConfig.Scope scope) {
    SharedSlots shared = new SharedSlots(em, dataSource, transactions, replica, config.leaseTtl());
    chosen =
        scope == LimitsConfig.Scope.SHARED
            ? new Chosen(scope, null, shared, shared) // the bucket is admit_key_request's (V22)
            : new Chosen(
                scope,
                new InstanceRateLimiter(keyRate.requestsPerMinutePerKey(), System::nanoTime),
                new InstanceSlots(),
                shared);
  }

  private Chosen chosen() {
    Chosen c = chosen;
    if (c == null) {
      use(config.scope()); // used before start-up finished (tests' early calls)
      c = chosen;
    }
    return c;
  }

  /** Where the limits are counted now. */
  public LimitsConfig.Scope scope() {
    return chosen().scope();
  }

  /** This replica's id in the leases it holds ({@code limit_lease.holder}). */
  public UUID holder() {
    return replica;
  }

  /** How long a lease lives without renewal. */
  public java.time.Duration leaseTtl() {
    return config.leaseTtl();
  }

  /** Requests an API key may start per minute. */
  public int requestsPerMinute() {
    return keyRate.requestsPerMinutePerKey();
  }

  /** Slots: an API key's requests in flight and a node's concurrency (subjects are their ids). */
  public SlotLimiter slots() {
    return chosen().slots();
  }

  /**
   * What admitting one request of an API key decided.
   *
   * @param lease the key's slot, held until given back; null when refused
   * @param retryAfterSeconds when refused, the whole seconds (≥ 1) to wait
   * @param rateLimited when refused, whether the key's requests per minute (else its requests in
   *     flight) refused it
   * @param level the key's bucket right after this request drew from it (or was refused by it)
   */
  public record KeyAdmission(
      UUID lease, int retryAfterSeconds, boolean rateLimited, KeyRateLevel level) {}

  /**
   * Takes one request from {@code key}'s allowance per minute and then one of its {@code
   * maxInFlight} slots: in the shared scope one database call, then a read of the bucket in the
   * same transaction.
   */
  public KeyAdmission admitKey(UUID key, int maxInFlight) {
    Chosen c = chosen();
    if (c.scope() == LimitsConfig.Scope.SHARED) {
      UUID lease = UUID.randomUUID();
      SharedSlots.KeyAnswer answer =
          c.shared().admitKey(key, keyRate.requestsPerMinutePerKey(), lease, maxInFlight);
      int wait = answer.answer();
      return wait == 0
          ? new KeyAdmission(lease, 0, false, answer.level())
          : new KeyAdmission(null, Math.max(1, wait), wait > 0, answer.level());
    }
    InstanceRateLimiter.Taken taken = c.rate().take(key);
    if (taken.waitSeconds() > 0) {
      return new KeyAdmission(null, taken.waitSeconds(), true, taken.level());
    }
    return c.slots()
        .take("key", key, maxInFlight)
        .map(lease -> new KeyAdmission(lease, 0, false, taken.level()))
        .orElse(new KeyAdmission(null, 1, false, taken.level()));
  }

  /**
   * {@code key}'s requests-per-minute bucket now, refilled to this moment (full for a key no
   * request drew from). In the shared scope it is read in the caller's transaction when there is
   * one: called right after the admission's call drew from the bucket in that transaction, whose
   * row lock it still holds, it is exactly what that request left; else one read of its own.
   */
  public KeyRateLevel keyRateLevel(UUID key) {
    Chosen c = chosen();
    return c.scope() == LimitsConfig.Scope.SHARED
        ? c.shared().level(key, keyRate.requestsPerMinutePerKey())
        : c.rate().level(key);
  }

  /**
   * Takes one request from {@code key}'s allowance per minute without taking a slot: the bucket
   * {@link #admitKey} draws from (a private session's frames draw from it as they arrive). One
   * database call in the shared scope.
   *
   * @return 0 when taken; otherwise the whole seconds (≥ 1) until one may be
   */
  public int takeKeyRequest(UUID key) {
    Chosen c = chosen();
    return c.scope() == LimitsConfig.Scope.SHARED
        ? c.shared().takeKeyRequest(key, keyRate.requestsPerMinutePerKey())
        : c.rate().tryAcquire(key);
  }

  /**
   * Takes one request from organisation {@code organisation}'s allowance per minute ({@code
   * tensafe.limits.organisation-requests-per-minute}), the bucket the admission's call draws from
   * for every request of its keys (ADR 0038): one database call in the shared scope; the instance
   * scope counts keys only, and takes nothing here.
   *
   * @return 0 when taken (or not counted); otherwise the whole seconds (≥ 1) until one may be
   */
  public int takeOrganisationRequest(UUID organisation) {
    Chosen c = chosen();
    return c.scope() == LimitsConfig.Scope.SHARED
        ? c.shared().takeKeyRequest(organisation, config.organisationRequestsPerMinute())
        : 0;
  }

  private void renewLogged() {
    try {
      chosen().shared().renew();
    } catch (RuntimeException e) {
      Log.warnf("renewing this replica's limit leases failed, will retry: %s", e.toString());
    }
  }
}
