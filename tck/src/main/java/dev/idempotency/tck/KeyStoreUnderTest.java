package dev.idempotency.tck;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.internal.TckClock;
import dev.idempotency.tck.internal.Timing;
import dev.idempotency.tck.internal.Verifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * One contract test's store and what it is judged by: its peers, the capabilities tested, the
 * clock, the timing profile and the verifier. {@link KeyStoreContract} makes one before every test;
 * the sections reach it through {@link ContractFixture#underTest()}. Not thread-safe: one test uses
 * it (the concurrency rules hand its store and peers to the gate, which starts its own threads).
 */
final class KeyStoreUnderTest {
  /**
   * How many other instances over the same records the concurrency rules spread their threads over.
   */
  private static final int PEERS = 2;

  /**
   * Makes another instance over the records of the store it is given: {@link
   * KeyStoreContract#newPeer}.
   */
  @FunctionalInterface
  interface PeerFactory {
    KeyStore newPeer(KeyStore store) throws Exception;
  }

  private final TckContext context;
  private final KeyStore store;
  private final Set<StoreCapability> capabilities;
  private final PeerFactory peers;
  private final TckClock clock;
  private final Timing timing;
  private final Verifier verifier;
  private @Nullable List<KeyStore> instances; // made on first use

  KeyStoreUnderTest(
      TckContext context, KeyStore store, Set<StoreCapability> capabilities, PeerFactory peers) {
    this.context = context;
    this.store = store;
    this.capabilities = capabilities;
    this.peers = peers;
    this.verifier = new Verifier(context.testName(), context.seed());
    // a store that judges time by its own clock ignores the TCK's now: its time rules run in real
    // time
    boolean serverClock = capabilities.contains(StoreCapability.SERVER_CLOCK);
    this.clock = TckClock.forStore(serverClock);
    this.timing = Timing.forStore(serverClock);
  }

  TckContext context() {
    return context;
  }

  KeyStore store() {
    return store;
  }

  TckClock clock() {
    return clock;
  }

  Timing timing() {
    return timing;
  }

  Verifier verifier() {
    return verifier;
  }

  boolean has(StoreCapability capability) {
    return capabilities.contains(capability);
  }

  /** The store and its peers, [store, peer, peer]; the peers are made on first use. */
  List<KeyStore> instances() throws Exception {
    if (instances == null) {
      List<KeyStore> all = new ArrayList<>();
      all.add(store);
      for (int i = 0; i < PEERS; i++) {
        all.add(
            Objects.requireNonNull(
                peers.newPeer(store), "newPeer(KeyStore, TckContext) returned null"));
      }
      instances = List.copyOf(all);
    }
    return instances;
  }

  /**
   * The seeds of this test's histories: the replayed one, or {@code count} drawn from the test's
   * seed.
   */
  long[] historySeeds(int count) {
    if (Knobs.seed().isPresent()) {
      return new long[] {Knobs.seed().getAsLong()};
    }
    SplittableRandom rnd = new SplittableRandom(context.seed());
    long[] seeds = new long[count];
    for (int i = 0; i < count; i++) {
      seeds[i] = rnd.nextLong();
    }
    return seeds;
  }
}
