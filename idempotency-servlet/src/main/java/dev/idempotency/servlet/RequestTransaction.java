package dev.idempotency.servlet;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The connection of the request in one transaction that runs on this thread, and the {@link
 * DataSource} view that hands it to code written against a {@code DataSource} ({@link
 * IdempotencyFilter#transactionAware}).
 */
final class RequestTransaction {
  private static final ThreadLocal<@Nullable Connection> CURRENT = new ThreadLocal<>();

  private RequestTransaction() {}

  /** Makes {@code connection} this thread's request transaction until {@link #end()}. */
  static void begin(Connection connection) {
    CURRENT.set(connection);
  }

  /** Ends this thread's request transaction. */
  static void end() {
    CURRENT.remove();
  }

  /**
   * {@code dataSource}, but the request's connection on a thread running one in one transaction.
   */
  static DataSource view(DataSource dataSource) {
    return new View(Objects.requireNonNull(dataSource, "dataSource"));
  }

  private record View(DataSource dataSource) implements DataSource {
    @Override
    public Connection getConnection() throws SQLException {
      Connection request = CURRENT.get();
      return request == null ? dataSource.getConnection() : borrowed(request);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      Connection request = CURRENT.get();
      if (request != null) {
        throw new SQLException(
            "a request in one transaction has one connection, the one that holds its key;"
                + " getConnection(username, password) cannot hand it out");
      }
      return dataSource.getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return dataSource.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      dataSource.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      dataSource.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return dataSource.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return dataSource.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      return type.isInstance(this) ? type.cast(this) : dataSource.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
      return type.isInstance(this) || dataSource.isWrapperFor(type);
    }
  }

  /**
   * The request's connection as the application may use it: closing it only ends this use (the
   * filter's store commits and returns the connection), and it cannot end the transaction, whose
   * commit is the key's.
   */
  private static Connection borrowed(Connection request) {
    InvocationHandler handler =
        new InvocationHandler() {
          private boolean closed;

          @Override
          public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args)
              throws Throwable {
            String name = method.getName();
            Object[] a = args == null ? new Object[0] : args;
            int arity = a.length;
            if (name.equals("close") && arity == 0) {
              closed = true;
              return null;
            }
            if (name.equals("isClosed") && arity == 0) {
              return closed || request.isClosed();
            }
            if (name.equals("equals") && arity == 1) {
              return proxy == a[0];
            }
            if (name.equals("hashCode") && arity == 0) {
              return System.identityHashCode(proxy);
            }
            if (name.equals("toString") && arity == 0) {
              return "the request's transaction on " + request;
            }
            if (closed) {
              throw new SQLException("this use of the request's connection was closed");
            }
            boolean endsTheTransaction =
                ((name.equals("commit") || name.equals("rollback")) && arity == 0)
                    || (name.equals("setAutoCommit") && arity == 1 && Boolean.TRUE.equals(a[0]));
            if (endsTheTransaction) {
              throw new SQLException(
                  name
                      + " refused: the request runs in one transaction, which commits with its"
                      + " idempotency key once the application returns, and rolls back with it if"
                      + " the application throws");
            }
            try {
              return method.invoke(request, a);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }
}
