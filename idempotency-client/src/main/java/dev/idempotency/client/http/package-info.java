/**
 * The {@link java.net.http.HttpClient} adapter: {@link
 * dev.idempotency.client.http.RetryingHttpClient} applies a {@link
 * dev.idempotency.client.RetryPolicy} to {@code send} and {@code sendAsync}, mints an {@code
 * Idempotency-Key} once per logical call for unsafe methods (POST, PATCH) when the caller gave
 * none, sends it unchanged on every attempt, gives every attempt the timeout {@code
 * min(attemptTimeout, time left)}, and returns an {@link
 * dev.idempotency.client.http.IdempotentResponse} that tells whether the final response was a
 * replay ({@code Idempotent-Replayed: true}).
 *
 * <p>Thread-safety is stated per type: the client is thread-safe, a {@link
 * dev.idempotency.client.http.HttpCall} is not (build and send it from one thread).
 */
@NullMarked
package dev.idempotency.client.http;

import org.jspecify.annotations.NullMarked;
