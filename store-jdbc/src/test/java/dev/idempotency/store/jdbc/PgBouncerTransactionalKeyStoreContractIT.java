package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK's transactional rules (the business writes and the fenced write in one transaction)
 * against PostgreSQL through PgBouncer in transaction pooling mode.
 */
class PgBouncerTransactionalKeyStoreContractIT extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES_PGBOUNCER;
  }
}
