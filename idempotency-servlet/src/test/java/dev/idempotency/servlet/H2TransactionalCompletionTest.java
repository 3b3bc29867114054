package dev.idempotency.servlet;

import com.zaxxer.hikari.HikariDataSource;

/** A completion committed with the business writes, over Jetty, with the JDBC store on embedded H2. */
class H2TransactionalCompletionTest extends TransactionalCompletionContract {
  @Override
  protected void connect(HikariDataSource pool) {
    pool.setJdbcUrl("jdbc:h2:mem:servlet-tx;DB_CLOSE_DELAY=-1");
  }
}
