package dev.idempotency.tck;

import dev.idempotency.tck.internal.Knobs;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.SplittableRandom;
import org.junit.jupiter.api.TestInfo;

/**
 * What the contract tells a store factory about the test it creates a store for, and where the
 * factory registers what must be cleaned up afterwards.
 *
 * <p>One context per test. {@link #onClose} resources are closed after the test, in reverse order
 * of registration (a connection pool registered before the schema it created is closed after the
 * schema is dropped); every resource is closed even if an earlier one fails, and the failures are
 * reported together. Thread-safe.
 */
public final class TckContext {
  private final String testName;
  private final long seed;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  TckContext(String testName, long seed) {
    this.testName = Objects.requireNonNull(testName, "testName");
    this.seed = seed;
  }

  /**
   * The context of the test JUnit is about to run: named {@code ContractClass.RuleGroup#method},
   * with the replayed seed ({@code idempotency.tck.seed}) or a new one.
   */
  static TckContext forTest(Class<?> contract, TestInfo info) {
    String name =
        contract.getSimpleName()
            + "."
            + info.getTestClass().map(Class::getSimpleName).orElse("?")
            + "#"
            + info.getTestMethod().map(Method::getName).orElse(info.getDisplayName());
    return new TckContext(name, Knobs.seed().orElseGet(() -> new SplittableRandom().nextLong()));
  }

  /**
   * The running test, as {@code ContractClass.RuleGroup#method}, for example {@code
   * JdbcKeyStoreContractTest.ClaimRules#required_1_1_firstClaimWinsAnAbsentRecord}: useful in logs,
   * and to derive a schema, table or key prefix per test (hash it: it is longer than most
   * identifier limits).
   */
  public String testName() {
    return testName;
  }

  /**
   * The seed of this test run: every failure message prints it, and {@code -Didempotency.tck.seed=}
   * replays it. A factory that randomizes anything (a port, a prefix) should derive it from this
   * seed.
   */
  public long seed() {
    return seed;
  }

  /**
   * Registers {@code resource} to be closed after the test, after every resource registered later.
   *
   * @throws NullPointerException if {@code resource} is null
   */
  public void onClose(AutoCloseable resource) {
    Objects.requireNonNull(resource, "resource");
    synchronized (resources) {
      resources.push(resource);
    }
  }

  /**
   * Closes every registered resource, most recent first; rethrows the first failure with the rest
   * suppressed.
   */
  void close() throws Exception {
    Exception failure = null;
    while (true) {
      AutoCloseable next;
      synchronized (resources) {
        next = resources.poll();
      }
      if (next == null) {
        break;
      }
      try {
        next.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "TckContext[" + testName + ", seed=" + seed + "]";
  }
}
