package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The JDBC store's own tests against {@link TestDatabases#H2}. */
class H2JdbcKeyStoreTest extends AbstractJdbcKeyStoreTest {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  @Override
  Dialect expectedDialect() {
    return Dialect.H2;
  }

  /**
   * The read that finds the record claimable, the row's lock, the claim, the read that confirms it,
   * and the commit of the claim's own transaction (H2Dialect#claimOnce).
   */
  @Override
  int wonClaimRoundTrips() {
    return 5;
  }

  /** A claim that cannot win is decided by its first read: no lock, no transaction. */
  @Override
  int claimOverhead() {
    return 0;
  }

  /**
   * In an empty H2 database a missing table has a SQLState of its own (42104, "this database is
   * empty"): the start-up message is still the one that says what is missing and how to fix it.
   */
  @Test
  void missingSchemaInAnEmptyDatabaseSaysWhatAndHowToFix() {
    JdbcDataSource empty = new JdbcDataSource();
    empty.setURL("jdbc:h2:mem:empty-" + UUID.randomUUID());
    assertThatThrownBy(() -> JdbcKeyStore.builder(empty).build())
        .isExactlyInstanceOf(KeyStoreException.class)
        .hasMessageContaining("idempotency_records")
        .hasMessageContaining("createSchemaIfMissing()");
  }

  /**
   * The schema outlives the connection that created it: without a pool, {@code
   * createSchemaIfMissing()}'s connection is closed before the first claim. With H2 2.4.240 a check
   * constraint written as {@code state IN (…)} then failed every insert ("Check constraint
   * invalid", H2 issues 4292 and 4308); the state check still refuses a state the store never
   * writes.
   */
  @Test
  void theSchemaOutlivesTheConnectionThatCreatedIt() throws SQLException {
    JdbcDataSource unpooled = new JdbcDataSource();
    unpooled.setURL("jdbc:h2:mem:one-session-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    try {
      JdbcKeyStore store = JdbcKeyStore.builder(unpooled).createSchemaIfMissing().build();
      RecordId id = newId();
      var won = claimed(store.claim(req(id, FP_A, T0)));
      store.release(id, won.fence(), T0.plusSeconds(1));
      var again = claimed(store.claim(req(id, FP_A, T0.plusSeconds(2))));
      store.complete(id, again.fence(), RESPONSE, T0.plusSeconds(3));
      assertThat(store.lookup(id).orElseThrow().state()).isEqualTo(KeyState.COMPLETE);
      try (Connection c = unpooled.getConnection();
          Statement s = c.createStatement()) {
        assertThatThrownBy(() -> s.executeUpdate("UPDATE idempotency_records SET state = 'X'"))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("IDEMPOTENCY_RECORDS_STATE_CK")
            .hasMessageContaining("Check constraint violation");
      }
    } finally {
      try (Connection c = unpooled.getConnection();
          Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      }
    }
  }
}
