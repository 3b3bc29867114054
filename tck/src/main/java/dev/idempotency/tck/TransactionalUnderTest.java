package dev.idempotency.tck;

import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.tck.internal.TckClock;
import dev.idempotency.tck.internal.Timing;
import dev.idempotency.tck.internal.Verifier;

/**
 * One transactional contract test's store and what it is judged by: the clock, the timing profile,
 * the verifier, and the contract whose hooks write and read the business markers. {@link
 * TransactionalKeyStoreContract} makes one before every test; the section files reach it through
 * {@link TransactionalFixture#underTest()}. Not thread-safe: one test uses it.
 *
 * @param <T> the store's transaction handle
 */
final class TransactionalUnderTest<T> {
  private final TckContext context;
  private final TransactionalKeyStore<T> store;
  private final TransactionalKeyStoreContract<T> hooks;
  private final TckClock clock;
  private final Timing timing;
  private final Verifier verifier;

  TransactionalUnderTest(
      TckContext context, TransactionalKeyStore<T> store, TransactionalKeyStoreContract<T> hooks) {
    this.context = context;
    this.store = store;
    this.hooks = hooks;
    this.verifier = new Verifier(context.testName(), context.seed());
    boolean serverClock = store.capabilities().contains(StoreCapability.SERVER_CLOCK);
    this.clock = TckClock.forStore(serverClock);
    this.timing = Timing.forStore(serverClock);
  }

  TckContext context() {
    return context;
  }

  TransactionalKeyStore<T> store() {
    return store;
  }

  /** The contract's subclass: its {@code write}, {@code committedMarkers} and abort hooks. */
  TransactionalKeyStoreContract<T> hooks() {
    return hooks;
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
}
