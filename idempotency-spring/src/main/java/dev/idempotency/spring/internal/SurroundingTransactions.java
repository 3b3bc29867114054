package dev.idempotency.spring.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Refuses an {@code @Idempotent} call that a Spring transaction surrounds, where the two would not
 * commit together. spring-tx is optional: without it no Spring transaction can surround a call, and
 * {@link TransactionSynchronizationManager} is only touched in {@link Present}, loaded when it is
 * there.
 */
final class SurroundingTransactions {
  private static final boolean PRESENT =
      ClassUtils.isPresent(
          "org.springframework.transaction.support.TransactionSynchronizationManager",
          SurroundingTransactions.class.getClassLoader());

  private SurroundingTransactions() {}

  /**
   * Throws when the call cannot run in the current Spring transaction state.
   *
   * @param plan the method's plan
   * @param dataSource the transactional methods' DataSource, or null
   * @param allowed whether a method that is not transactional may run inside one
   * @throws IllegalStateException naming the method and what to change
   */
  static void check(MethodPlan plan, @Nullable Object dataSource, boolean allowed) {
    if (PRESENT) {
      Present.check(plan, dataSource, allowed);
    }
  }

  private static final class Present {
    static void check(MethodPlan plan, @Nullable Object dataSource, boolean allowed) {
      boolean inTransaction = TransactionSynchronizationManager.isActualTransactionActive();
      if (plan.transactional
          && (inTransaction
              || (dataSource != null
                  && TransactionSynchronizationManager.hasResource(dataSource)))) {
        throw new IllegalStateException(
            "@Idempotent(transactional = true) on "
                + MethodPlans.describe(plan.method)
                + " is called inside a Spring transaction: its writes and its key commit in the"
                + " store's own transaction, which cannot also be the caller's. Call it outside"
                + " the transaction (order the transaction advisor after IdempotentMethods)");
      }
      if (inTransaction && !allowed) {
        throw new IllegalStateException(
            "@Idempotent on "
                + MethodPlans.describe(plan.method)
                + " is called inside a Spring transaction: its key would complete before that"
                + " transaction commits, and if it rolled back, a retry would replay a result whose"
                + " writes never committed. Call it outside the transaction, make it"
                + " transactional = true, or, when its writes do not join that transaction,"
                + " allow it with IdempotentMethods.Builder.allowSurroundingTransactions(true)");
      }
    }
  }
}
