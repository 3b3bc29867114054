/**
 * The framework-neutral HTTP contract of idempotency keys: reads and validates the {@code
 * Idempotency-Key} header, resolves the caller's scope, fingerprints the request, enforces the size
 * limits, and maps every outcome of the engine to a status, headers and an RFC 9457 problem body.
 * Adapters for web frameworks (the servlet filter) are thin layers over {@link
 * dev.idempotency.http.IdempotencyHttp}.
 */
module dev.idempotency.http {
  requires transitive dev.idempotency.core;
  // the nullness annotations of the API (@Nullable): needed to compile, optional at run time;
  // transitive, so that a module compiling against this API reads them too
  requires static transitive org.jspecify;

  exports dev.idempotency.http;
}
