package dev.idempotency.client.functional;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The end-to-end scenarios with the JDBC store over an in-memory H2 database (one per test) behind
 * the filter.
 */
class JdbcH2FilterEndToEndTest extends FilterEndToEndContract {
  private JdbcDataSource dataSource;

  @Override
  protected KeyStore newStore() {
    dataSource = new JdbcDataSource();
    dataSource.setURL("jdbc:h2:mem:client-e2e-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    return JdbcKeyStore.builder(dataSource).createSchemaIfMissing().build();
  }

  @Override
  protected void closeStore() throws Exception {
    if (dataSource != null) {
      try (Connection c = dataSource.getConnection();
          Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      }
    }
  }
}
