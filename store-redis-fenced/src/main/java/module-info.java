/**
 * The Redis {@code KeyStore}: each claim and fenced write is one Lua script, and fences come from a
 * per-key counter that outlives the record. The Lettuce connection is the user's.
 */
// Lettuce ships as an automatic module (lettuce.core); its connection types are in this module's
// API, so it is required transitively, which javac warns about for any automatic module.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.idempotency.store.redis {
  requires static org.jspecify;
  requires transitive dev.idempotency.api;
  requires transitive lettuce.core;

  exports dev.idempotency.store.redis;
}
