package dev.idempotency.tck;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The contract every {@link KeyStore} must pass: the numbered rules of the TCK's {@code SPEC.md},
 * as JUnit 5 tests.
 *
 * <p>A store's test module extends this class with one factory:
 *
 * <pre>{@code
 * class InMemoryKeyStoreContractTest extends KeyStoreContract {
 *   protected KeyStore newStore(TckContext context) {
 *     return new InMemoryKeyStore();
 *   }
 * }
 * }</pre>
 *
 * <p>Every test gets a fresh, empty store from {@link #newStore}, and, where it needs several
 * application instances over the same records, peers from {@link #newPeer}. Time is the TCK's:
 * every call carries a {@code now} from a controlled clock, which the tests move to hit lease,
 * window and retention boundaries to the millisecond; a store that declares {@link
 * StoreCapability#SERVER_CLOCK} ignores that {@code now}, so for it the same rules run with short
 * real leases and real sleeps.
 *
 * <p>Test names carry the rule: {@code required_x_y_…} must pass, {@code optional_x_y_…} runs only
 * when the store declares the capability it needs (otherwise it is skipped with the reason), {@code
 * stochastic_x_y_…} runs seeded random histories, and {@code untested_x_y_…} marks a rule the TCK
 * cannot check (always skipped, with the reason). A failure message names the rule ("Rule 2.3
 * violated: …"), the seed, and what to check.
 *
 * <p>Knobs (system properties, or environment variables such as {@code IDEMPOTENCY_TCK_ROUNDS}):
 * {@code idempotency.tck.seed} (replay one seed), {@code idempotency.tck.rounds} (concurrency-gate
 * rounds per thread count, default 20), {@code idempotency.tck.histories} (histories per stochastic
 * test, default 60), {@code idempotency.tck.serverClockLeaseMillis} (the real lease for
 * SERVER_CLOCK stores, default 1000). Tests tagged {@code slow} run the long variants.
 *
 * <p>Every test has a deadline of 10 minutes (the long runs tagged {@code slow}: 60), far above
 * what a networked store needs at the default knobs, so a store that blocks fails the test instead
 * of hanging the build; see SPEC.md, "Deadlines".
 *
 * <p>Not thread-safe: JUnit creates one instance per test.
 *
 * <p>Each SPEC section's tests are a test interface of their own, in this package: {@code
 * Section1ClaimOutcomes} to {@code Section9Arguments}, {@code Section11Listing} and {@code
 * Section11Extend} (section 2 has two, {@code Section2Concurrency} and {@code Section2Histories}),
 * written over one fixture, {@code ContractFixture}. This class runs each through a {@code @Nested}
 * class that implements it, so that an implementer extends one class with one factory and gets
 * every rule, and reads the rules of one section in one file.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
public abstract class KeyStoreContract {
  /**
   * The resource the time rules share and the load rules hold alone, under JUnit's parallel
   * execution: the time rules of a {@code SERVER_CLOCK} store sleep through real leases, so they
   * run side by side ({@code @Execution(CONCURRENT)}: about a fifth of the time), but never beside
   * the concurrency gate or the generated histories, whose load could delay a real-time check past
   * its margin. Without parallel execution enabled (JUnit's default) every rule runs in turn, as
   * before.
   */
  public static final String QUIET_MACHINE = "dev.idempotency.tck.quiet-machine";

  private TckContext context;
  private KeyStoreUnderTest underTest;

  /** For subclasses. */
  protected KeyStoreContract() {}

  /**
   * A fresh, empty store for one test. Register what must be closed afterwards with {@link
   * TckContext#onClose}.
   *
   * @param context the test the store is for
   * @return the store to test; never null
   * @throws Exception if the store cannot be created (the test then fails, not the rule)
   */
  protected abstract KeyStore newStore(TckContext context) throws Exception;

  /**
   * Another instance over the same records as {@code store}: for a shared store, one with its own
   * connection pool (or client), standing for another application instance. The concurrency rules
   * spread their threads over the store and two peers. The default returns {@code store} itself,
   * which is right for an in-process store.
   *
   * @param store the store {@link #newStore} returned for this test
   * @param context the test
   * @return a store over the same records; may be {@code store}
   * @throws Exception if the peer cannot be created
   */
  protected KeyStore newPeer(KeyStore store, TckContext context) throws Exception {
    return store;
  }

  /**
   * The capabilities to test. The default is {@code store.capabilities()}; override only to test a
   * store as if it lacked a capability.
   *
   * @param store the store under test
   * @return the capabilities the contract assumes
   */
  protected Set<StoreCapability> capabilities(KeyStore store) {
    return store.capabilities();
  }

  /** Creates this test's store, clock and timing; called by JUnit before every test. */
  @BeforeEach
  protected final void setUpKeyStoreContract(TestInfo info) throws Exception {
    // assigned before the factory runs, so that what it registered is closed even when it then
    // fails
    TckContext test = TckContext.forTest(getClass(), info);
    context = test;
    KeyStore store = Objects.requireNonNull(newStore(test), "newStore(TckContext) returned null");
    Set<StoreCapability> capabilities =
        Objects.requireNonNull(capabilities(store), "capabilities(KeyStore) returned null");
    underTest = new KeyStoreUnderTest(test, store, capabilities, s -> newPeer(s, test));
  }

  /** Closes what the factories registered; called by JUnit after every test. */
  @AfterEach
  protected final void tearDownKeyStoreContract() throws Exception {
    if (context != null) {
      context.close();
    }
  }

  /**
   * A section as JUnit runs it: one {@code @Nested} class per section file, whose tests are all the
   * interface's; the class only hands them this test's store.
   */
  private abstract class Section implements ContractFixture {
    @Override
    public KeyStoreUnderTest underTest() {
      return underTest;
    }
  }

  @Nested
  @DisplayName("1. Claim outcomes")
  class ClaimRules extends Section implements Section1ClaimOutcomes {}

  @Nested
  @DisplayName("2. Atomicity and concurrency")
  @ResourceLock(value = QUIET_MACHINE, mode = ResourceAccessMode.READ_WRITE)
  class ConcurrencyRules extends Section implements Section2Concurrency {}

  @Nested
  @DisplayName("2. Generated histories")
  @ResourceLock(value = QUIET_MACHINE, mode = ResourceAccessMode.READ_WRITE)
  class HistoryRules extends Section implements Section2Histories {}

  @Nested
  @DisplayName("3. Fencing")
  @Execution(ExecutionMode.CONCURRENT)
  @ResourceLock(value = QUIET_MACHINE, mode = ResourceAccessMode.READ)
  class FencingRules extends Section implements Section3Fencing {}

  @Nested
  @DisplayName("4. Time: leases and the replay window")
  @Execution(ExecutionMode.CONCURRENT)
  @ResourceLock(value = QUIET_MACHINE, mode = ResourceAccessMode.READ)
  class TimeRules extends Section implements Section4Time {}

  @Nested
  @DisplayName("5. Completion and release")
  class CompletionRules extends Section implements Section5Completion {}

  @Nested
  @DisplayName("6. Scopes and record identity")
  class ScopeRules extends Section implements Section6Scopes {}

  @Nested
  @DisplayName("7. Retention, the reaper and abandoned records")
  @Execution(ExecutionMode.CONCURRENT)
  @ResourceLock(value = QUIET_MACHINE, mode = ResourceAccessMode.READ)
  class RetentionRules extends Section implements Section7Retention {}

  @Nested
  @DisplayName("8. The server clock")
  class ServerClockRules extends Section implements Section8ServerClock {}

  @Nested
  @DisplayName("9. Arguments and capabilities")
  class ArgumentRules extends Section implements Section9Arguments {}

  @Nested
  @DisplayName("11. Listing records")
  class ListingRules extends Section implements Section11Listing {}

  @Nested
  @DisplayName("11. Listing records: extending a record's retention")
  @Execution(ExecutionMode.CONCURRENT)
  @ResourceLock(value = QUIET_MACHINE, mode = ResourceAccessMode.READ)
  class ExtendRules extends Section implements Section11Extend {}
}
