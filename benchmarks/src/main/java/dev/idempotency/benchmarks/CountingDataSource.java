package dev.idempotency.benchmarks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Wraps a {@code DataSource} and counts, over all its connections, what a request sends: round
 * trips (every statement execution and every explicit commit or rollback, as the store's tests
 * count them), commits, and {@code setAutoCommit} calls. A commit is an explicit {@code commit()},
 * or a statement that may write run on a connection in auto-commit mode (one that does not begin
 * with {@code SELECT}, {@code SET} or {@code SHOW}): that statement is a transaction of its own.
 * Such a statement that changes nothing (an upsert that finds the row complete) is counted too,
 * though the server may flush nothing for it; on PostgreSQL {@link DurableSingleStep} also counts
 * the transaction ids the server assigned, which only transactions that write take. {@code
 * setAutoCommit} is counted apart because the drivers differ: PostgreSQL's sends nothing, MariaDB's
 * may send a statement, so it can be a round trip that the first count leaves out. Thread-safe.
 */
final class CountingDataSource implements DataSource {
  private static final Set<String> EXECUTIONS =
      Set.of(
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeLargeUpdate",
          "executeBatch",
          "executeLargeBatch");

  private final DataSource delegate;
  private final AtomicLong roundTrips = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong autoCommitSwitches = new AtomicLong();

  /** What was counted since the last {@link #reset}. */
  record Counts(long roundTrips, long commits, long autoCommitSwitches) {}

  CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /** Returns the counts since the last reset and starts again from zero. */
  Counts reset() {
    return new Counts(
        roundTrips.getAndSet(0), commits.getAndSet(0), autoCommitSwitches.getAndSet(0));
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  /** A statement that may write, which in auto-commit mode commits. */
  private static boolean mayWrite(String sql) {
    String head = sql.stripLeading().toUpperCase(Locale.ROOT);
    return !(head.startsWith("SELECT") || head.startsWith("SET") || head.startsWith("SHOW"));
  }

  private Connection wrap(Connection c) throws SQLException {
    // the mode the pool hands the connection out in, followed through setAutoCommit
    boolean[] autoCommit = {c.getAutoCommit()};
    InvocationHandler h =
        (proxy, method, args) -> {
          String name = method.getName();
          switch (name) {
            case "commit" -> {
              roundTrips.incrementAndGet();
              commits.incrementAndGet();
            }
            case "rollback" -> roundTrips.incrementAndGet();
            case "setAutoCommit" -> autoCommitSwitches.incrementAndGet();
            default -> {}
          }
          Object result = invoke(c, method, args);
          if (name.equals("setAutoCommit")) {
            autoCommit[0] = (Boolean) args[0];
          }
          if (result instanceof Statement s
              && (name.equals("prepareStatement") || name.equals("createStatement"))) {
            String prepared =
                name.equals("prepareStatement") && args != null && args[0] instanceof String sql
                    ? sql
                    : null;
            return wrapStatement(s, method.getReturnType(), prepared, autoCommit);
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  /** {@code prepared}: the statement's SQL if it was prepared, else null (given to execute). */
  private Object wrapStatement(Statement s, Class<?> type, String prepared, boolean[] autoCommit) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if (EXECUTIONS.contains(method.getName())) {
            roundTrips.incrementAndGet();
            String sql =
                prepared != null
                    ? prepared
                    : args != null && args.length > 0 && args[0] instanceof String text ? text : "";
            if (autoCommit[0] && mayWrite(sql)) {
              commits.incrementAndGet();
            }
          }
          return invoke(s, method, args);
        };
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
