package dev.idempotency.spring.internal;

import java.sql.Connection;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the store's transaction Spring's transaction for a DataSource while a transactional method
 * runs: its {@code Connection} is bound as the DataSource's {@link ConnectionHolder}, marked
 * active, so {@code JdbcTemplate} (through {@code DataSourceUtils}) writes on it and a
 * {@code @Transactional} method it calls joins it (propagation {@code REQUIRED}) instead of
 * committing on a connection of its own. Given the application's JPA EntityManagerFactory, it makes
 * the transaction JPA's too ({@link HibernateSessionBinding}). Only this class needs spring-jdbc,
 * and only transactional methods (and the Spring Boot filter's requests in one transaction) load
 * it. Not API: exported to the Spring Boot auto-configuration only.
 */
public final class StoreConnectionBinding {
  private StoreConnectionBinding() {}

  /**
   * Runs {@code work} with {@code connection} bound for {@code dataSource} and, given one, for
   * {@code entityManagerFactory} (a Hibernate session on it), and unbinds it.
   *
   * @param dataSource the {@code javax.sql.DataSource} the store's connection comes from
   * @param entityManagerFactory a Hibernate {@code jakarta.persistence.EntityManagerFactory} built
   *     on that DataSource, or null: without it no JPA class is loaded
   * @param connection the store's connection, in its transaction
   * @param work what runs in the transaction
   * @throws UnexpectedRollbackException if the work returned but a joined {@code @Transactional}
   *     marked the transaction rollback-only: the store then rolls everything back, the key too
   */
  public static Object run(
      Object dataSource,
      @Nullable Object entityManagerFactory,
      Connection connection,
      Callable<Object> work)
      throws Exception {
    ConnectionHolder holder = new ConnectionHolder(connection, true);
    TransactionSynchronizationManager.bindResource(dataSource, holder);
    boolean wasActive = TransactionSynchronizationManager.isActualTransactionActive();
    TransactionSynchronizationManager.setActualTransactionActive(true);
    try {
      Object result =
          entityManagerFactory == null
              ? work.call()
              : HibernateSessionBinding.run(entityManagerFactory, connection, work);
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
