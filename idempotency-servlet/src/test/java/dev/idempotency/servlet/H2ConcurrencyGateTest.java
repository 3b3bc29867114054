package dev.idempotency.servlet;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;

/** The concurrency gate over Jetty with the JDBC store on embedded H2 (a pool of 16 connections). */
class H2ConcurrencyGateTest extends ConcurrencyGateContract {
  private HikariDataSource pool;

  @Override
  protected KeyStore newStore() {
    pool = new HikariDataSource();
    pool.setJdbcUrl("jdbc:h2:mem:servlet-gate;DB_CLOSE_DELAY=-1");
    pool.setMaximumPoolSize(16);
    return JdbcKeyStore.builder(pool).tableName("servlet_gate_records").createSchemaIfMissing().build();
  }

  @Override
  protected void closeStore() {
    pool.close();
  }
}
