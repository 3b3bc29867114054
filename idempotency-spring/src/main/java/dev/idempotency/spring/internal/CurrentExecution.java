package dev.idempotency.spring.internal;

import dev.idempotency.Execution;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * The claim of the {@code @Idempotent} method running on a thread, bound while its body runs so
 * that the body can reach it without a parameter of its own. The innermost guarded method wins; a
 * transactional one hides the claim of any method around it, since it has none of its own.
 */
public final class CurrentExecution {
  /** Bound while a transactional method runs: it runs in the store's transaction, not a lease. */
  private static final Object IN_ONE_TRANSACTION = new Object();

  private static final ThreadLocal<@Nullable Object> CURRENT = new ThreadLocal<>();

  private CurrentExecution() {}

  /**
   * The claim of the guarded method running on this thread.
   *
   * @throws IllegalStateException if none runs on this thread, or the innermost is transactional
   */
  public static Execution get() {
    Object current = CURRENT.get();
    if (current instanceof Execution execution) {
      return execution;
    }
    if (current == IN_ONE_TRANSACTION) {
      throw new IllegalStateException(
          "a transactional @Idempotent method has no Execution: its writes commit only together"
              + " with its result, in the store's transaction, so a takeover of its key rolls them"
              + " back; it must call nothing outside that transaction");
    }
    throw new IllegalStateException(
        "no @Idempotent method runs on this thread: IdempotentMethods.currentExecution() answers"
            + " inside the body of one, on the thread that called it (hand the Execution to other"
            + " threads yourself)");
  }

  /** Runs {@code body} with {@code execution} as this thread's claim. */
  static Object with(Execution execution, Callable<Object> body) throws Exception {
    return bound(execution, body);
  }

  /** Runs {@code body} of a transactional method, which has no claim of its own. */
  static Object inOneTransaction(Callable<Object> body) throws Exception {
    return bound(IN_ONE_TRANSACTION, body);
  }

  private static Object bound(Object current, Callable<Object> body) throws Exception {
    Object outer = CURRENT.get();
    CURRENT.set(current);
    try {
      return body.call();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }
}
