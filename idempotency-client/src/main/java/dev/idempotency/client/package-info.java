/**
 * The retry policy and its parts, independent of any transport.
 *
 * <p>{@link dev.idempotency.client.RetryPolicy} is the entry point: an immutable, validated
 * configuration built by {@link dev.idempotency.client.RetryPolicy#builder()} (or {@link
 * dev.idempotency.client.RetryPolicy#ofDefaults()}) that holds the attempt bound, the {@link
 * dev.idempotency.client.Backoff backoff} (full jitter by default, decorrelated jitter the one
 * alternative), the overall deadline and per-attempt timeout, the classification allowlist, the
 * shared {@link dev.idempotency.client.RetryBudget retry budget}, and the {@link
 * dev.idempotency.client.RetryEnvironment environment}: the injected time, randomness, sleeping and
 * logging ({@link dev.idempotency.client.Ticker}, {@link dev.idempotency.client.RandomSource},
 * {@link dev.idempotency.client.Sleeper}) that make every schedule reproducible in tests.
 *
 * <p>{@link dev.idempotency.client.OperationKey} mints the {@code Idempotency-Key} of one logical
 * operation, in the ranked derivations: event-derived first, request-scoped second, a random UUID
 * kept across retries last. A call that stops retrying throws {@link
 * dev.idempotency.client.RetriesExhaustedException}, which says how many attempts ran, how long the
 * call took and which {@link dev.idempotency.client.StopReason} ended it. Every retry is logged
 * through {@link java.lang.System.Logger} and published as a {@link
 * dev.idempotency.client.RetryEvent}.
 *
 * <p>Unless a type's javadoc says otherwise, every type here is immutable and thread-safe, and no
 * method accepts or returns {@code null} unless its signature says {@link
 * org.jspecify.annotations.Nullable @Nullable}: any other {@code null} argument throws {@link
 * java.lang.NullPointerException} naming the parameter.
 */
@NullMarked
package dev.idempotency.client;

import org.jspecify.annotations.NullMarked;
