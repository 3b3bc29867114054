package dev.idempotency.store.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Wraps a {@code DataSource} and counts the round trips its connections make: every statement
 * execution and every explicit commit or rollback; it also records the query timeouts set on its
 * statements. Thread-safe.
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
  private final AtomicInteger roundTrips = new AtomicInteger();
  private final List<Integer> queryTimeouts = new CopyOnWriteArrayList<>();

  CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  int roundTrips() {
    return roundTrips.get();
  }

  int reset() {
    queryTimeouts.clear();
    return roundTrips.getAndSet(0);
  }

  /** Each {@code setQueryTimeout} on a statement since the last {@link #reset}, in order. */
  List<Integer> queryTimeouts() {
    return List.copyOf(queryTimeouts);
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  private Connection wrap(Connection c) {
    InvocationHandler h =
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("commit") || name.equals("rollback")) {
            roundTrips.incrementAndGet();
          }
          Object result = invoke(c, method, args);
          if (result instanceof Statement s
              && (name.equals("prepareStatement") || name.equals("createStatement"))) {
            return wrapStatement(s, method.getReturnType());
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  private Object wrapStatement(Statement s, Class<?> type) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if (EXECUTIONS.contains(method.getName())) {
            roundTrips.incrementAndGet();
          } else if (method.getName().equals("setQueryTimeout")) {
            queryTimeouts.add((Integer) args[0]);
          }
          return invoke(s, method, args);
        };
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
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
