package dev.idempotency.spring.internal;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.Callable;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.support.DataAccessUtils;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.orm.jpa.hibernate.HibernateExceptionTranslator;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the store's transaction JPA's too, for a Hibernate {@link EntityManagerFactory}, while the
 * work runs: a Hibernate {@link Session} opened on the store's {@code Connection} is bound as
 * Spring's {@link EntityManagerHolder} for the factory, marked transaction-active and synchronized,
 * so the shared {@code EntityManager} ({@code @PersistenceContext}, Spring Data repositories) works
 * in it and a {@code JpaTransactionManager}'s {@code @Transactional} (propagation {@code REQUIRED})
 * joins it instead of beginning a transaction of its own. The session is flushed before the work
 * returns, so its SQL runs before the store commits, and closed afterwards. Only this class needs
 * Hibernate, JPA and spring-orm, and only a binding given an EntityManagerFactory loads it.
 */
final class HibernateSessionBinding {
  private static final HibernateExceptionTranslator TRANSLATOR = new HibernateExceptionTranslator();

  private HibernateSessionBinding() {}

  /**
   * Runs {@code work} with a session on {@code connection} bound for {@code entityManagerFactory},
   * flushes it, closes it and unbinds it. An EntityManager bound for the factory before (an
   * open-in-view one around the request) is set aside while the work runs and bound again after.
   *
   * @throws UnexpectedRollbackException if the work returned but the session's transaction was
   *     marked rollback-only (a joined {@code @Transactional} failed, or Hibernate marked it): the
   *     store then rolls everything back, the key too
   */
  static Object run(Object entityManagerFactory, Connection connection, Callable<Object> work)
      throws Exception {
    EntityManagerFactory factory = (EntityManagerFactory) entityManagerFactory;
    StoreTransaction storeTransaction = new StoreTransaction(connection);
    Object setAside = TransactionSynchronizationManager.unbindResourceIfPossible(factory);
    try (Session session =
        factory
            .unwrap(SessionFactory.class)
            .withOptions()
            .connection(storeTransaction.connection())
            .openSession()) {
      TransactionSynchronizationManager.bindResource(factory, new JoinedHolder(session));
      try {
        return runInSession(session, storeTransaction, work);
      } finally {
        TransactionSynchronizationManager.unbindResource(factory);
      }
    } finally {
      if (setAside != null) {
        TransactionSynchronizationManager.bindResource(factory, setAside);
      }
    }
  }

  /**
   * Runs the work in a Hibernate transaction of the session's that commits nothing.
   *
   * <p>Why a Hibernate transaction: Hibernate refuses to flush without one in progress ({@code
   * TransactionRequiredException: No active transaction}; {@code
   * hibernate.allow_update_outside_transaction} is the factory's setting, not a session's), the
   * shared EntityManager refuses {@code persist} outside one once a joined {@code @Transactional}
   * has cleared Spring's "transaction active" flag, and Hibernate runs no auto-flush before a query
   * without one. Why it commits nothing: its commit and rollback call the connection's, which would
   * commit the claim and the writes before the response is stored, or roll the claim back in the
   * middle of the run; so the session gets the {@link StoreTransaction}, whose {@code commit()}
   * does nothing and whose {@code rollback()} only records it. Why it is ended all the same, not
   * left open: a session of a JPA factory closed with its transaction active is not closed, only
   * marked to close when that transaction completes, which would never happen. The store alone
   * commits or rolls back the connection, once, with the key.
   */
  private static Object runInSession(
      Session session, StoreTransaction storeTransaction, Callable<Object> work) throws Exception {
    Transaction transaction = session.getTransaction();
    transaction.begin();
    Object result;
    try {
      result = work.call();
    } catch (Exception | Error e) {
      rollBack(transaction, e);
      throw e;
    }
    if (!transaction.getRollbackOnly()) {
      try {
        session.flush();
      } catch (RuntimeException e) {
        rollBack(transaction, e);
        // as a JPA transaction's commit reports a failed flush: a DataAccessException
        throw DataAccessUtils.translateIfNecessary(e, TRANSLATOR);
      }
    }
    if (transaction.getRollbackOnly()) {
      transaction.rollback();
      throw new UnexpectedRollbackException(
          "JPA code joined the store's transaction and marked it rollback-only (a @Transactional"
              + " method that failed, or Hibernate after a failed statement): nothing it wrote"
              + " commits, nor the key");
    }
    transaction.commit(); // flushed above: ends the session's transaction, commits nothing
    if (storeTransaction.rolledBack) {
      // Hibernate rolls back rather than commits a transaction marked rollback-only as it
      // completes (and says so only in JPA-compliance mode): a mark set while it completed
      throw new UnexpectedRollbackException(
          "Hibernate rolled back the session's transaction as it completed: nothing it wrote"
              + " commits, nor the key");
    }
    return result;
  }

  private static void rollBack(Transaction transaction, Throwable failure) {
    try {
      if (transaction.isActive()) {
        transaction.rollback();
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * The session bound as the JPA transaction that {@code JpaTransactionManager} joins (transaction
   * active) and the shared EntityManager uses as it is (synchronized: no synchronization of
   * Spring's may close it or unbind it).
   */
  private static final class JoinedHolder extends EntityManagerHolder {
    JoinedHolder(EntityManager session) {
      super(session);
      setTransactionActive(true);
      setSynchronizedWithTransaction(true);
    }
  }

  /**
   * The store's connection as the session sees it: every call reaches it but {@code commit()},
   * which does nothing, and {@code rollback()}, which only records that the session rolled back.
   */
  private static final class StoreTransaction implements InvocationHandler {
    private final Connection target;
    private final Connection proxy;
    boolean rolledBack;

    StoreTransaction(Connection target) {
      this.target = target;
      this.proxy =
          (Connection)
              Proxy.newProxyInstance(
                  HibernateSessionBinding.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  this);
    }

    Connection connection() {
      return proxy;
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args)
        throws Throwable {
      String name = method.getName();
      if (method.getParameterCount() == 0) {
        if (name.equals("commit")) {
          return null;
        }
        if (name.equals("rollback")) {
          rolledBack = true;
          return null;
        }
        if (name.equals("hashCode")) {
          return System.identityHashCode(proxy);
        }
        if (name.equals("toString")) {
          return "the store's transaction on " + target;
        }
      } else if (name.equals("equals") && method.getParameterCount() == 1) {
        return proxy == args[0];
      }
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }
}
