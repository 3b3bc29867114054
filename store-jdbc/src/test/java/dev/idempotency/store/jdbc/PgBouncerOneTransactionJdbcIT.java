package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The one-transaction mode against PostgreSQL through PgBouncer in transaction pooling mode: the
 * transaction-scoped advisory lock, the statement timeouts and a session killed mid-transaction, as
 * on a direct connection ({@link PostgresOneTransactionJdbcIT}).
 */
class PgBouncerOneTransactionJdbcIT extends PostgresOneTransactionJdbcIT {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES_PGBOUNCER;
  }
}
