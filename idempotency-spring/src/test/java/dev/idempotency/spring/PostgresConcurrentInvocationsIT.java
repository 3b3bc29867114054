package dev.idempotency.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;

/**
 * The concurrent deliveries on the JDBC store over the PostgreSQL test server ({@code
 * IDEMPOTENCY_TEST_PG_*}), in a new table of its own per test, dropped afterwards (a table left
 * from an older schema would fail the store's start-up check); every test uses a new event id.
 */
class PostgresConcurrentInvocationsIT extends ConcurrentInvocationsContract {
  HikariDataSource dataSource;
  String table;

  @Override
  KeyStore store() {
    dataSource = TestDatabases.POSTGRES.pool(TestDatabases.POSTGRES.url(), 16);
    table = "spring_method_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 8);
    return JdbcKeyStore.builder(dataSource).tableName(table).createSchemaIfMissing().build();
  }

  @AfterEach
  void dropTableAndClosePool() throws Exception {
    if (dataSource == null) {
      return;
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute("DROP SEQUENCE IF EXISTS " + table + "_fence_seq");
    } finally {
      dataSource.close();
    }
  }
}
