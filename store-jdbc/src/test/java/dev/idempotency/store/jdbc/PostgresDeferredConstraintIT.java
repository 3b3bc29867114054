package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Work;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A constraint of the application's table declared {@code DEFERRABLE INITIALLY DEFERRED}, violated
 * by the work's writes, fails at the commit, after the work returned. That is the application's
 * failure, not the store's: the {@code SQLException} comes out as it was (the engine's {@code
 * OperationFailedException} has it as its cause), nothing commits, and the key is not left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class PostgresDeferredConstraintIT {
  private static final Fingerprint FP = Fingerprint.of("d".getBytes(StandardCharsets.UTF_8));
  private static final String TABLE = "deferred_records";
  private static final String ORDERS = "deferred_orders";

  private HikariDataSource pool;
  private JdbcKeyStore store;

  @BeforeAll
  void setUp() throws SQLException {
    TestDatabases db = TestDatabases.POSTGRES;
    pool = db.pool(db.url(), 4);
    AbstractJdbcKeyStoreTest.dropTables(pool, TABLE, ORDERS);
    AbstractJdbcKeyStoreTest.exec(
        pool,
        "CREATE TABLE "
            + ORDERS
            + " (order_no INT NOT NULL, CONSTRAINT deferred_orders_uq UNIQUE (order_no)"
            + " DEFERRABLE INITIALLY DEFERRED)");
    store = JdbcKeyStore.builder(pool).tableName(TABLE).createSchemaIfMissing().build();
  }

  @AfterAll
  void tearDown() throws SQLException {
    if (pool != null) {
      try {
        AbstractJdbcKeyStoreTest.dropTables(pool, TABLE, ORDERS);
      } finally {
        pool.close();
      }
    }
  }

  /** Two rows of one order number: fine until the commit checks the deferred constraint. */
  private static void insertTheSameOrderTwice(Connection tx, int orderNo) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO " + ORDERS + " (order_no) VALUES (?)")) {
      ps.setInt(1, orderNo);
      ps.executeUpdate();
      ps.executeUpdate();
    }
  }

  private int orders(int orderNo) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + ORDERS + " WHERE order_no = ?")) {
      ps.setInt(1, orderNo);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static StoredResponse created() {
    return StoredResponse.of(201, Map.of(), "created".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aOneTransactionRunWhoseCommitBreaksTheConstraintThrowsTheSqlException() throws Exception {
    RecordId id = RecordId.of("acct", "one-tx-" + System.nanoTime());
    assertThatThrownBy(
            () ->
                store.claimAndComplete(
                    new ClaimRequest(
                        id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1)),
                    (Connection tx, ClaimOutcome.Claimed claim) -> {
                      insertTheSameOrderTwice(tx, 1);
                      return created();
                    }))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("deferred_orders_uq")
        .matches(e -> "23505".equals(((SQLException) e).getSQLState()), "SQLState 23505");
    assertThat(store.lookup(id)).as("the record").isEmpty();
    assertThat(orders(1)).as("the work's rows").isZero();
  }

  @Test
  void aCompletionWhoseCommitBreaksTheConstraintIsTheOperationsFailure() throws Exception {
    RecordId id = RecordId.of("acct", "two-commit-" + System.nanoTime());
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine.execute(
                      id,
                      FP,
                      Work.stepped(
                          execution ->
                              execution.completeWith(
                                  Connection.class,
                                  tx -> {
                                    insertTheSameOrderTwice(tx, 2);
                                    return created();
                                  }))))
          .isInstanceOfSatisfying(
              OperationFailedException.class,
              PostgresDeferredConstraintIT::releasedTheKeyForTheConstraint);
    }
    assertThat(store.lookup(id)).as("the record").isEmpty();
    assertThat(orders(2)).as("the work's rows").isZero();
  }

  @Test
  void aRequestInOneTransactionWhoseCommitBreaksTheConstraintIsTheOperationsFailure()
      throws Exception {
    RecordId id = RecordId.of("acct", "engine-one-tx-" + System.nanoTime());
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine.execute(
                      id,
                      FP,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            insertTheSameOrderTwice(tx, 3);
                            return created();
                          })))
          .isInstanceOfSatisfying(
              OperationFailedException.class,
              PostgresDeferredConstraintIT::releasedTheKeyForTheConstraint);
    }
    assertThat(store.lookup(id)).as("the record").isEmpty();
    assertThat(orders(3)).as("the work's rows").isZero();
  }

  /** The work's failure is the constraint's {@code SQLException}, and the key was released. */
  private static void releasedTheKeyForTheConstraint(OperationFailedException failed) {
    assertThat(failed.keyReleased()).as("keyReleased").isTrue();
    assertThat(failed.getCause())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("deferred_orders_uq");
  }
}
