/**
 * The operators' command line over {@link dev.idempotency.core.KeyStoreAdmin}: lists the stuck
 * records of a JDBC, Redis or DynamoDB store, shows one and releases one ({@link
 * dev.idempotency.admin.AdminCli}).
 */
// Lettuce and the AWS SDK ship as automatic modules: requiring them is what opening their stores
// takes, so the lint that warns about it is switched off here.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idempotency.admin {
  requires static org.jspecify;
  requires dev.idempotency.core;
  requires dev.idempotency.store.jdbc;
  requires dev.idempotency.store.redis;
  requires dev.idempotency.store.dynamodb;
  requires software.amazon.awssdk.auth;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.http;
  requires software.amazon.awssdk.http.urlconnection;
  requires software.amazon.awssdk.identity.spi;
  requires software.amazon.awssdk.regions;
  requires software.amazon.awssdk.utils;

  exports dev.idempotency.admin;
}
