package dev.idempotency.store.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Connections whose every transaction begins with {@code SET TRANSACTION ISOLATION LEVEL}, for a
 * pooler in transaction pooling mode. There the isolation a pool sets on its connections ({@code
 * Connection.setTransactionIsolation}, which PostgreSQL's driver sends as {@code SET SESSION
 * CHARACTERISTICS}) stays on the server connection and reaches whichever client PgBouncer hands it
 * to next: a test at {@code SERIALIZABLE} made later tests of other classes run at it too. Set per
 * transaction, the level ends with the transaction.
 */
final class PerTransactionIsolation extends ForwardingDataSource {
  /** The calls that can start a transaction's first statement. */
  private static final Set<String> STARTS =
      Set.of("createStatement", "prepareStatement", "prepareCall", "setSavepoint");

  private final String level;

  /**
   * @param isolation a {@code Connection} constant's name, such as {@code TRANSACTION_SERIALIZABLE}
   */
  PerTransactionIsolation(DataSource pool, String isolation) {
    super(pool);
    this.level = isolation.substring("TRANSACTION_".length()).replace('_', ' ');
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  private Connection wrap(Connection c) throws SQLException {
    boolean startsPending = !c.getAutoCommit();
    InvocationHandler handler =
        new InvocationHandler() {
          private boolean pending = startsPending; // a transaction begins with the next statement

          @Override
          public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (pending && STARTS.contains(name)) {
              pending = false;
              try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL " + level);
              }
            }
            Object result;
            try {
              result = m.invoke(c, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
            boolean endsTransaction =
                name.equals("commit")
                    || (name.equals("rollback") && (args == null || args.length == 0));
            if ((name.equals("setAutoCommit") || endsTransaction) && !c.getAutoCommit()) {
              pending = true;
            } else if (name.equals("setAutoCommit")) {
              pending = false;
            }
            return result;
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }
}
