/**
 * The client half on Apache HttpClient 5 (classic API): {@link
 * dev.idempotency.client.httpclient5.IdempotentRetryExec}, an exec-chain handler that keys every
 * POST and PATCH once per logical call and retries it by {@code idempotency-client}'s policy,
 * deadline and budget, in place of the client's own retry strategy.
 */
// HttpClient 5 and HttpCore 5 ship as automatic modules; the handler is an httpclient5 type, so it
// is required transitively, which javac warns about for any automatic module. The module is named
// after the library, httpclient5, whose digit javac's "module" lint warns about too.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic", "module"})
module dev.idempotency.client.httpclient5 {
  requires static org.jspecify;
  requires transitive dev.idempotency.client;
  requires transitive org.apache.httpcomponents.client5.httpclient5;
  // the handler's signature speaks HttpCore types (ClassicHttpRequest, ClassicHttpResponse)
  requires transitive org.apache.httpcomponents.core5.httpcore5;

  exports dev.idempotency.client.httpclient5;
}
