/**
 * The client half on OkHttp 5: {@link dev.idempotency.client.okhttp.IdempotencyInterceptor}, an
 * application interceptor that keys every POST and PATCH once per logical call and retries it by
 * {@code idempotency-client}'s policy, deadline and budget.
 */
// OkHttp and Okio ship as automatic modules (okhttp3, okio); the interceptor is an okhttp3 type,
// so okhttp3 is required transitively, which javac warns about for any automatic module.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.idempotency.client.okhttp {
  requires static org.jspecify;
  requires transitive dev.idempotency.client;
  requires transitive okhttp3;
  // the response body is read through its Okio source, under the attempt's deadline
  requires okio;

  exports dev.idempotency.client.okhttp;
}
