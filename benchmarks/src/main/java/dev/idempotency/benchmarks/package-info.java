/**
 * JMH benchmarks: every store's claim hot path beside the least work that store must do for the
 * same outcome (its baseline, on the same connection pool), the engine's own overhead, and how cost
 * grows with the number of records. Stores are picked through {@link
 * dev.idempotency.benchmarks.StoreType}, a JMH {@code @Param}.
 */
package dev.idempotency.benchmarks;
