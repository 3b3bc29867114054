/**
 * The operators' command line over {@link dev.idempotency.core.KeyStoreAdmin}: lists the stuck
 * records of a JDBC store, shows one and releases one ({@link dev.idempotency.admin.AdminCli}).
 */
module dev.idempotency.admin {
  requires static org.jspecify;
  requires dev.idempotency.core;
  requires dev.idempotency.store.jdbc;

  exports dev.idempotency.admin;
}
