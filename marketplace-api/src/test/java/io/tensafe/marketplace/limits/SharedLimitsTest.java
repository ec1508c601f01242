package io.tensafe.marketplace.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Limits held by two replicas at once (two {@link SharedSlots} with their own holder ids on one
 * PostgreSQL): the slots in use never exceed the limit whichever replica takes them, a dead
 * replica's leases lapse after the lease time while a live one's do not, and two replicas share one
 * key's requests per minute and slots ({@code admit_key_request}), the requests with a private
 * session's frames ({@code take_key_request}).
 */
@QuarkusTest
class SharedLimitsTest {
  @Inject EntityManager em;
  @Inject io.agroal.api.AgroalDataSource dataSource;
  @Inject jakarta.transaction.TransactionManager transactions;

  private SharedSlots replica(Duration ttl) {
    return new SharedSlots(em, dataSource, transactions, UUID.randomUUID(), ttl);
  }

  @Test
  void twoReplicas_neverHoldMoreSlotsThanTheLimit_underContention() throws Exception {
    SharedSlots[] replicas = {replica(Duration.ofSeconds(30)), replica(Duration.ofSeconds(30))};
    UUID key = UUID.randomUUID();
    int limit = 3;
    AtomicInteger inUse = new AtomicInteger();
    AtomicInteger worst = new AtomicInteger();
    AtomicInteger granted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(12);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < 12; t++) {
      SharedSlots replica = replicas[t % 2];
      work.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 15; i++) {
                  Optional<UUID> lease = replica.take("key", key, limit);
                  if (lease.isEmpty()) {
                    refused.incrementAndGet();
                    continue;
                  }
                  granted.incrementAndGet();
                  worst.accumulateAndGet(inUse.incrementAndGet(), Math::max);
                  Thread.onSpinWait();
                  inUse.decrementAndGet();
                  replica.give(lease.get());
                }
                return null;
              }));
    }
    for (Future<?> f : work) {
      f.get();
    }
    pool.shutdown();
    assertTrue(worst.get() <= limit, "at most " + limit + " at once, saw " + worst.get());
    assertTrue(
        granted.get() > 0 && refused.get() > 0, granted + " granted, " + refused + " refused");
    assertEquals(0, replicas[0].held(List.of(key))[0], "every slot given back");
  }

  @Test
  void aDeadReplicasLeasesLapse_aLiveReplicasAreRenewed() throws Exception {
    Duration ttl = Duration.ofSeconds(2);
    SharedSlots dead = replica(ttl);
    SharedSlots live = replica(ttl);
    SharedSlots other = replica(ttl);
    UUID node = UUID.randomUUID();
    UUID key = UUID.randomUUID();
    assertTrue(dead.take("node", node, 2).isPresent());
    assertTrue(dead.take("node", node, 2).isPresent());
    assertTrue(live.take("key", key, 1).isPresent());
    assertTrue(other.take("node", node, 2).isEmpty(), "the node's two slots are held");
    assertTrue(other.take("key", key, 1).isEmpty(), "the key's slot is held");
    long until = System.nanoTime() + Duration.ofMillis(3500).toNanos();
    while (System.nanoTime() < until) {
      live.renew(); // the live replica renews every third of the lease time; the dead one never
      Thread.sleep(600);
    }
    assertEquals(0, other.held(List.of(node))[0], "the dead replica's leases lapsed");
    assertTrue(other.take("node", node, 2).isPresent(), "its slots are free again");
    assertTrue(other.take("key", key, 1).isEmpty(), "the live replica still holds its slot");
  }

  @Test
  void admittingAKeysRequest_takesFromItsBucketThenASlot_inOneCall() {
    SharedSlots a = replica(Duration.ofSeconds(30));
    SharedSlots b = replica(Duration.ofSeconds(30));
    UUID key = UUID.randomUUID();
    java.util.function.BiFunction<SharedSlots, UUID, Integer> admit =
        (replica, lease) -> replica.admitKey(key, 10, lease, 2).answer();
    UUID first = UUID.randomUUID();
    SharedSlots.KeyAnswer firstAnswer = a.admitKey(key, 10, first, 2);
    assertEquals(0, firstAnswer.answer());
    assertEquals(9, firstAnswer.level().remaining(), "the level this request left, read with it");
    assertEquals(0, admit.apply(b, UUID.randomUUID()));
    assertEquals(-1, admit.apply(a, UUID.randomUUID()), "both slots held, by two replicas");
    a.give(first);
    assertEquals(0, admit.apply(b, UUID.randomUUID()), "a slot given back is free again");
    int admittedOrFull = 4;
    int wait = 0;
    for (int i = 0; i < 10 && wait == 0; i++) {
      int answer = admit.apply(i % 2 == 0 ? a : b, UUID.randomUUID());
      if (answer > 0) {
        wait = answer;
      } else {
        admittedOrFull++;
      }
    }
    assertEquals(10, admittedOrFull, "ten a minute, whichever replica asks");
    assertTrue(wait >= 1 && wait <= 6, "then about six seconds to wait: " + wait);
    KeyRateLevel level = b.level(key, 10);
    assertEquals(0, level.remaining(), "either replica reads the empty bucket: " + level);
    assertTrue(level.untilFull().toSeconds() >= 54, "a minute's refill, nearly: " + level);
    assertEquals(KeyRateLevel.full(10), a.level(UUID.randomUUID(), 10), "a key never seen is full");
  }

  @Test
  void takingAKeysRequestWithoutASlot_drawsFromTheBucketItsAdmissionsDrawFrom() {
    SharedSlots a = replica(Duration.ofSeconds(30));
    SharedSlots b = replica(Duration.ofSeconds(30));
    UUID key = UUID.randomUUID();
    assertEquals(0, a.admitKey(key, 10, UUID.randomUUID(), 1).answer());
    int taken = 1;
    int wait = 0;
    for (int i = 0; i < 12 && wait == 0; i++) {
      wait = (i % 2 == 0 ? a : b).takeKeyRequest(key, 10);
      if (wait == 0) {
        taken++;
      }
    }
    assertEquals(10, taken, "ten a minute, admissions and slot-less takes together");
    assertTrue(wait >= 1 && wait <= 6, "then about six seconds to wait: " + wait);
    assertTrue(b.admitKey(key, 10, UUID.randomUUID(), 5).answer() > 0, "admissions wait on it too");
    assertEquals(1, a.held(List.of(key))[0], "takes hold no slot");
  }
}
