package dev.idempotency.servlet;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The concurrency gate over Jetty with the JDBC store on the PostgreSQL test server ({@code
 * IDEMPOTENCY_TEST_PG_*}; skipped locally, failed in CI, when unset). A table of its own per run,
 * dropped afterwards, so neither another module's tests, a concurrent build on the same server nor
 * a table left by an older schema interferes.
 */
class PostgresConcurrencyGateIT extends ConcurrencyGateContract {
  private final String table =
      "servlet_gate_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
  private HikariDataSource pool;

  @Override
  protected KeyStore newStore() {
    pool = TestDatabases.POSTGRES.pool(TestDatabases.POSTGRES.url(), 16);
    return JdbcKeyStore.builder(pool).tableName(table).createSchemaIfMissing().build();
  }

  @Override
  protected void closeStore() throws SQLException {
    if (pool != null) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
        s.execute("DROP SEQUENCE IF EXISTS " + table + "_fence_seq");
      } finally {
        pool.close();
      }
    }
  }
}
