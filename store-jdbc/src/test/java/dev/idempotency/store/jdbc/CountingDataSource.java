package dev.idempotency.store.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Wraps a {@code DataSource} and counts the round trips its connections make: every statement
 * execution and every explicit commit or rollback; it also records the query timeouts set on its
 * statements. Thread-safe.
 */
final class CountingDataSource extends ForwardingDataSource {
  private static final Set<String> EXECUTIONS =
      Set.of(
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeLargeUpdate",
          "executeBatch",
          "executeLargeBatch");

  private final AtomicInteger roundTrips = new AtomicInteger();
  private final List<Integer> queryTimeouts = new CopyOnWriteArrayList<>();
  private final AtomicReference<Interleaved> interleaved = new AtomicReference<>();

  /** What a test runs between two statements of one connection. */
  @FunctionalInterface
  interface Interleaved {
    void run() throws Exception;
  }

  /**
   * Runs {@code action} once, on the calling thread, just before the statement that follows a
   * claim's opening read (the record's plain primary-key {@code SELECT}) on the same connection:
   * between the read and the statement that arbitrates the claim. The action must use other
   * connections; it is disarmed before it runs, so its own statements do not trigger it.
   */
  void afterClaimRead(Interleaved action) {
    interleaved.set(action);
  }

  /** Whether the action of {@link #afterClaimRead} is still waiting for its statement. */
  boolean interleavePending() {
    return interleaved.get() != null;
  }

  CountingDataSource(DataSource delegate) {
    super(delegate);
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
    AtomicBoolean afterRead = new AtomicBoolean();
    InvocationHandler h =
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("commit") || name.equals("rollback")) {
            roundTrips.incrementAndGet();
          }
          Object result = invoke(c, method, args);
          if (result instanceof Statement s
              && (name.equals("prepareStatement") || name.equals("createStatement"))) {
            String sql = args != null && args.length > 0 && args[0] instanceof String q ? q : "";
            return wrapStatement(s, method.getReturnType(), sql, afterRead);
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  /** How the store's plain read of one record begins (H2's claim locking the row begins so too). */
  private static final String RECORD_READ = "SELECT scope, idem_key, state, fingerprint";

  private Object wrapStatement(Statement s, Class<?> type, String sql, AtomicBoolean afterRead) {
    boolean isRead = sql.startsWith(RECORD_READ) && !sql.contains("FOR UPDATE");
    InvocationHandler h =
        (proxy, method, args) -> {
          if (EXECUTIONS.contains(method.getName())) {
            roundTrips.incrementAndGet();
            if (afterRead.getAndSet(isRead)) {
              Interleaved action = interleaved.getAndSet(null);
              if (action != null) {
                action.run();
              }
            }
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
}
