package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyStoreException;
import dev.idempotency.testing.TestDatabases;
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
}
