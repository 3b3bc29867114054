/**
 * The retry half of the idempotency guarantee: an allowlisted retry policy with full jitter,
 * attempt and time bounds, one overall deadline, a shared retry budget, idempotency keys minted
 * once per logical operation, and a {@code java.net.http} adapter that applies all of it.
 *
 * <p>At run time the module needs nothing outside the JDK; the JSpecify nullness annotations are
 * required statically, to compile. {@code java.net.http} is required transitively because the
 * adapter's API speaks {@link java.net.http.HttpClient} types. {@code
 * dev.idempotency.client.internal} is not exported: nothing in it is API.
 */
module dev.idempotency.client {
  requires transitive java.net.http;
  // the nullness annotations of the API (@Nullable): needed to compile, optional at run time;
  // transitive, so that a module compiling against this API reads them too
  requires static transitive org.jspecify;

  exports dev.idempotency.client;
  exports dev.idempotency.client.http;
}
