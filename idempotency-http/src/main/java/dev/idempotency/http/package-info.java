/**
 * The HTTP contract of idempotency keys, independent of any web framework.
 *
 * <p>{@link dev.idempotency.http.IdempotencyHttp} is the handler: built once from an engine and a
 * few settings (each validated when set, each with a documented default), it takes one request as
 * an {@link dev.idempotency.http.HttpRequestView}, runs the application through a {@link
 * dev.idempotency.http.Downstream} at most once per key within the replay window, and returns an
 * {@link dev.idempotency.http.HttpResult}: either "pass the request through untouched" or the
 * response to write.
 *
 * <p>Every refusal is an {@code application/problem+json} body (RFC 9457) with {@code type}, {@code
 * title}, {@code status}, {@code detail}, a machine-readable {@code code} (see {@link
 * dev.idempotency.http.ProblemCode}) and {@code retryable}. The contract table, every default and
 * the reason for it are in {@code docs/http.md}.
 *
 * <p>Nulls: no method here accepts or returns {@code null} unless its signature says {@link
 * org.jspecify.annotations.Nullable @Nullable}; any other {@code null} argument throws {@link
 * java.lang.NullPointerException} naming the parameter. Every type says whether it is thread-safe.
 */
@NullMarked
package dev.idempotency.http;

import org.jspecify.annotations.NullMarked;
