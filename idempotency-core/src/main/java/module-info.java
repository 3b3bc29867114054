/**
 * The engine that drives the three-state machine over any {@code KeyStore}, its configuration and
 * policies, the in-memory store, the reaper, and the fence checker for resources downstream of a
 * fenced owner. Depends on the API module only.
 */
module dev.idempotency.core {
  requires static org.jspecify;
  requires transitive dev.idempotency.api;

  exports dev.idempotency.core;
}
