package dev.idempotency.servlet;

import dev.idempotency.testing.TestDatabases;

/**
 * A completion committed with the business writes, over Jetty, with the JDBC store on embedded H2.
 */
class H2TransactionalCompletionTest extends TransactionalCompletionContract {
  @Override
  protected TestDatabases database() {
    return TestDatabases.H2;
  }
}
