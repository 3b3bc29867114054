package dev.idempotency.tck;

import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of a {@link TransactionalKeyStore}: rules 10.x of the TCK's {@code SPEC.md}, as
 * JUnit 5 tests. A transactional store passes {@link KeyStoreContract} for its {@code KeyStore}
 * methods and this class for {@code inPhase}, {@code completeWith} and, when it declares {@link
 * StoreCapability#ONE_TRANSACTION}, {@code claimAndComplete} (rules 10.9 to 10.13, skipped with the
 * reason otherwise).
 *
 * <p>A store's test module extends it with a factory and two hooks that let the rules see business
 * writes: one writes a marker through the transaction handle the work is given, the other reads the
 * markers committed so far, outside any transaction. For a JDBC store:
 *
 * <pre>{@code
 * class MyTransactionalContractTest extends TransactionalKeyStoreContract<Connection> {
 *   protected TransactionalKeyStore<Connection> newStore(TckContext context) { ... } // and a markers table
 *   protected void write(Connection tx, String marker) throws SQLException { ... }   // INSERT INTO markers
 *   protected List<String> committedMarkers() throws SQLException { ... }             // SELECT marker FROM markers
 *   protected boolean canAbortRetryably() { return true; }
 *   protected void abortRetryably(Connection tx) throws SQLException {
 *     throw new SQLTransactionRollbackException("injected serialization failure", "40001");
 *   }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh, empty store and calls it for an owner that claimed a record, with the
 * record, fence, time and lease the engine would pass. Rule 10.5 needs {@link #abortRetryably}:
 * without it the test is skipped, with the reason. Time is the TCK's controlled clock, or real time
 * with short leases for a store that declares {@link StoreCapability#SERVER_CLOCK}, as in {@link
 * KeyStoreContract}. Test names carry the rule ({@code required_10_x_…}, {@code optional_10_5_…}),
 * and a failure message names the rule and what to check.
 *
 * <p>Every test has a deadline of 2 minutes: each makes a few dozen store calls and, in real time,
 * sleeps through at most one lease; a store that blocks (a phase that waits on a lock its own work
 * holds) fails the test that reached it instead of hanging the build.
 *
 * <p>Not thread-safe: JUnit creates one instance per test.
 *
 * <p>The rules' tests are in three test interfaces of this package, {@code Section10Transactions}
 * (rules 10.1 to 10.5), {@code Section10Declarations} (10.6 to 10.8) and {@code
 * Section10OneTransaction} (10.9 to 10.13), written over one fixture, {@code TransactionalFixture};
 * this class runs each through a {@code @Nested} class, so that an implementer extends one class
 * and gets section 10 whole.
 *
 * @param <T> the store's transaction handle, for example {@code java.sql.Connection}
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class TransactionalKeyStoreContract<T> {
  private TckContext context;
  private TransactionalUnderTest<T> underTest;

  /** For subclasses. */
  protected TransactionalKeyStoreContract() {}

  /**
   * A fresh, empty store for one test, with an empty place for markers. Register what must be
   * closed afterwards with {@link TckContext#onClose}.
   *
   * @param context the test the store is for
   * @return the store to test; never null
   * @throws Exception if the store cannot be created (the test then fails, not a rule)
   */
  protected abstract TransactionalKeyStore<T> newStore(TckContext context) throws Exception;

  /**
   * A business write of {@code marker} through {@code tx}, as an application's work makes one: it
   * commits or rolls back with the store's transaction. Markers are unique within a test.
   *
   * @param tx the transaction handle the work was given
   * @param marker what to write
   * @throws Exception if the write fails (the test then fails)
   */
  protected abstract void write(T tx, String marker) throws Exception;

  /**
   * The markers committed so far to this test's store, in any order, one entry per committed write:
   * read outside any transaction, as another application instance would see them.
   *
   * @return the committed markers
   * @throws Exception if they cannot be read (the test then fails)
   */
  protected abstract List<String> committedMarkers() throws Exception;

  /**
   * Whether {@link #abortRetryably} is implemented; default false, and rule 10.5 is skipped, with
   * the reason.
   *
   * @return true if {@link #abortRetryably} makes the store roll back and run the work again
   */
  protected boolean canAbortRetryably() {
    return false;
  }

  /**
   * Makes the store roll the transaction of {@code tx} back and run the work again, as a
   * serialization failure or a deadlock would: throw what the store treats as retryable (a JDBC
   * store: an {@code SQLException} with SQLState 40001), or mark {@code tx} so that its commit
   * fails that way.
   *
   * @param tx the transaction handle of the run to abort
   * @throws Exception the exception that makes the store run the work again, if that is how it is
   *     told
   */
  protected void abortRetryably(T tx) throws Exception {
    throw new UnsupportedOperationException(
        "abortRetryably is not implemented; canAbortRetryably() is false");
  }

  /** Creates this test's store, clock and timing; called by JUnit before every test. */
  @BeforeEach
  protected final void setUpTransactionalKeyStoreContract(TestInfo info) throws Exception {
    // assigned before the factory runs, so that what it registered is closed even when it then
    // fails
    TckContext test = TckContext.forTest(getClass(), info);
    context = test;
    TransactionalKeyStore<T> store =
        Objects.requireNonNull(newStore(test), "newStore(TckContext) returned null");
    underTest = new TransactionalUnderTest<>(test, store, this);
  }

  /** Closes what the factory registered; called by JUnit after every test. */
  @AfterEach
  protected final void tearDownTransactionalKeyStoreContract() throws Exception {
    if (context != null) {
      context.close();
    }
  }

  /**
   * A section as JUnit runs it: one {@code @Nested} class per section file, whose tests are all the
   * interface's; the class only hands them this test's store.
   */
  private abstract class Section implements TransactionalFixture<T> {
    @Override
    public TransactionalUnderTest<T> underTest() {
      return underTest;
    }
  }

  @Nested
  @DisplayName("10. Transactional stores: what commits together")
  class TransactionRules extends Section implements Section10Transactions<T> {}

  @Nested
  @DisplayName("10. Transactional stores: the transaction type, refusals and the capability")
  class DeclarationRules extends Section implements Section10Declarations<T> {}

  @Nested
  @DisplayName(
      "10. Transactional stores: the claim, the work and the completion in one transaction")
  class OneTransactionRules extends Section implements Section10OneTransaction<T> {}
}
