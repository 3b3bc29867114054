package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.tck.TckContext;
import dev.idempotency.tck.TransactionalKeyStoreContract;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;

/**
 * The TCK's transactional rules (10.x) against one database: a fresh store table and a business
 * table of markers per test (named from the test, dropped after it), one connection pool per test
 * class. The work's business write is an {@code INSERT} of the marker on the connection the store
 * gives it; a retryable abort is the serialization failure a database reports (SQLState 40001),
 * thrown by the work.
 */
abstract class JdbcTransactionalKeyStoreContract extends TransactionalKeyStoreContract<Connection> {
  private static final Map<Class<?>, HikariDataSource> POOLS = new ConcurrentHashMap<>();
  private static final AtomicInteger TABLES = new AtomicInteger();

  private HikariDataSource pool;
  private String markers;

  abstract TestDatabases db();

  /** Engine time (the TCK's controlled clock) unless a subclass proves the database clock. */
  ClockSource clockSource() {
    return ClockSource.ENGINE;
  }

  @Override
  protected TransactionalKeyStore<Connection> newStore(TckContext context) throws SQLException {
    // a connection for the work's transaction, one for a claim made while it is open, one for the
    // reads; rule 10.13 races 8 one-transaction requests, each on a connection of its own
    pool = POOLS.computeIfAbsent(getClass(), c -> db().pool(db().url(), 12));
    String table =
        "tck_tx"
            + (clockSource() == ClockSource.DATABASE ? "c" : "e")
            + "_"
            + Integer.toHexString(context.testName().hashCode())
            + "_"
            + TABLES.incrementAndGet()
            + "_"
            + AbstractJdbcKeyStoreTest.JVM;
    markers = table + "_m";
    HikariDataSource owner = pool;
    AbstractJdbcKeyStoreTest.dropTables(owner, table, markers);
    context.onClose(() -> AbstractJdbcKeyStoreTest.dropTables(owner, table, markers));
    AbstractJdbcKeyStoreTest.exec(
        owner, "CREATE TABLE " + markers + " (marker VARCHAR(200) NOT NULL)");
    return configure(JdbcKeyStore.builder(owner))
        .tableName(table)
        .clockSource(clockSource())
        .createSchemaIfMissing()
        .build();
  }

  /** The store's settings beyond table and clock: a subclass may add one (none by default). */
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder;
  }

  @Override
  protected void write(Connection tx, String marker) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO " + markers + " (marker) VALUES (?)")) {
      ps.setString(1, marker);
      ps.executeUpdate();
    }
  }

  @Override
  protected List<String> committedMarkers() throws SQLException {
    List<String> committed = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT marker FROM " + markers);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        committed.add(rs.getString(1));
      }
    }
    return committed;
  }

  @Override
  protected boolean canAbortRetryably() {
    return true;
  }

  @Override
  protected void abortRetryably(Connection tx) throws SQLException {
    throw new SQLTransactionRollbackException("a serialization failure the TCK injects", "40001");
  }

  @AfterAll
  static void closePools() {
    POOLS.values().forEach(HikariDataSource::close);
    POOLS.clear();
  }
}
