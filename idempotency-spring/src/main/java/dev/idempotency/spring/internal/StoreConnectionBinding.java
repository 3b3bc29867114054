package dev.idempotency.spring.internal;

import java.sql.Connection;
import java.util.concurrent.Callable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the store's transaction Spring's transaction for a DataSource while a transactional method
 * runs: its {@code Connection} is bound as the DataSource's {@link ConnectionHolder}, marked
 * active, so {@code JdbcTemplate} (through {@code DataSourceUtils}) writes on it and a
 * {@code @Transactional} method it calls joins it (propagation {@code REQUIRED}) instead of
 * committing on a connection of its own. Only this class needs spring-jdbc, and only transactional
 * methods load it.
 */
final class StoreConnectionBinding {
  private StoreConnectionBinding() {}

  /**
   * Runs {@code work} with {@code connection} bound for {@code dataSource}, and unbinds it.
   *
   * @throws UnexpectedRollbackException if the work returned but a joined {@code @Transactional}
   *     marked the transaction rollback-only: the store then rolls everything back, the key too
   */
  static Object run(Object dataSource, Connection connection, Callable<Object> work)
      throws Exception {
    ConnectionHolder holder = new ConnectionHolder(connection, true);
    TransactionSynchronizationManager.bindResource(dataSource, holder);
    boolean wasActive = TransactionSynchronizationManager.isActualTransactionActive();
    TransactionSynchronizationManager.setActualTransactionActive(true);
    try {
      Object result = work.call();
      if (holder.isRollbackOnly()) {
        throw new UnexpectedRollbackException(
            "a @Transactional method joined the store's transaction and marked it rollback-only:"
                + " nothing the method wrote commits, nor its key");
      }
      return result;
    } finally {
      TransactionSynchronizationManager.setActualTransactionActive(wasActive);
      TransactionSynchronizationManager.unbindResourceIfPossible(dataSource);
    }
  }
}
