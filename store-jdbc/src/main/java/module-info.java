/**
 * The JDBC {@code KeyStore}: a unique constraint on {@code (scope, key)} arbitrates every claim,
 * and the claim, each checkpoint and the completion commit in the same transaction as the caller's
 * business writes. Supports PostgreSQL 15+, MySQL 8 / MariaDB 10.11 and H2 2.x; the JDBC driver and
 * the {@code DataSource} are the user's.
 */
module dev.idempotency.store.jdbc {
  requires static org.jspecify;
  requires transitive dev.idempotency.api;
  requires transitive java.sql;

  exports dev.idempotency.store.jdbc;
}
