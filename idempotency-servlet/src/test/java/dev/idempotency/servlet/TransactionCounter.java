package dev.idempotency.servlet;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Counts what the store does with its connections: the connections it takes, its explicit commits,
 * and its statements that write ({@code INSERT}, {@code UPDATE}, {@code MERGE}, {@code DELETE}) run
 * with auto-commit on, each of which commits on its own without a {@code commit()} call. A request
 * in one transaction takes one connection, commits once, and writes nothing in auto-commit. Wraps
 * with dynamic proxies, so that nothing of the pool's behaviour changes. Thread-safe.
 */
final class TransactionCounter {
  private static final Pattern WRITES = Pattern.compile("\\b(INSERT|UPDATE|MERGE|DELETE)\\b");

  final AtomicInteger connections = new AtomicInteger();
  final AtomicInteger commits = new AtomicInteger();
  final AtomicInteger autoCommittedWrites = new AtomicInteger();

  /** {@code pool}, counted. */
  DataSource wrap(DataSource pool) {
    return proxy(
        DataSource.class,
        (p, method, args) -> {
          Object result = invoke(method, pool, args);
          if (result instanceof Connection c) {
            connections.incrementAndGet();
            return connection(c);
          }
          return result;
        });
  }

  /** Sets every count back to zero. */
  void reset() {
    connections.set(0);
    commits.set(0);
    autoCommittedWrites.set(0);
  }

  @Override
  public String toString() {
    return "connections="
        + connections
        + " commits="
        + commits
        + " autoCommittedWrites="
        + autoCommittedWrites;
  }

  private Connection connection(Connection c) {
    return proxy(
        Connection.class,
        (p, method, args) -> {
          if (method.getName().equals("commit")) {
            commits.incrementAndGet();
          }
          Object result = invoke(method, c, args);
          if (result instanceof Statement s) {
            // prepareStatement(sql, …) names its SQL now; createStatement's comes with execute
            String sql = args != null && args.length > 0 && args[0] instanceof String q ? q : null;
            return statement(c, s, method.getReturnType(), sql);
          }
          return result;
        });
  }

  private Object statement(Connection c, Statement s, Class<?> type, String preparedSql) {
    InvocationHandler h =
        (p, method, args) -> {
          if (method.getName().startsWith("execute")) {
            String sql =
                args != null && args.length > 0 && args[0] instanceof String q ? q : preparedSql;
            if (sql != null && isWrite(sql) && c.getAutoCommit()) {
              autoCommittedWrites.incrementAndGet();
            }
          }
          return invoke(method, s, args);
        };
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, h);
  }

  /**
   * Whether {@code sql} may write: it names a writing command anywhere (PostgreSQL's claim is a
   * {@code WITH} whose branches insert and update); a locking read's {@code FOR UPDATE} does not
   * count.
   */
  private static boolean isWrite(String sql) {
    String upper = sql.toUpperCase(Locale.ROOT).replace("FOR UPDATE", "");
    return WRITES.matcher(upper).find();
  }

  private <T> T proxy(Class<T> type, InvocationHandler handler) {
    return type.cast(
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler));
  }

  private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause(); // the driver's exception, unchanged, so the store maps it as it would
    }
  }
}
