package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against PostgreSQL through PgBouncer in transaction pooling mode ({@link
 * TestDatabases#POSTGRES_PGBOUNCER}), time judged by the TCK's controlled clock: every statement of
 * the store is correct when consecutive transactions of one connection meet different server
 * connections.
 */
class PgBouncerKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES_PGBOUNCER;
  }
}
