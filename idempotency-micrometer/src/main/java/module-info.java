/**
 * Micrometer meters from the idempotency engine: {@link
 * dev.idempotency.micrometer.IdempotencyMetrics}, usable with or without Spring.
 */
// micrometer-core ships as the automatic module micrometer.core; IdempotencyMetrics takes its
// MeterRegistry, so it is required transitively, which javac warns about for an automatic module.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.idempotency.micrometer {
  requires static org.jspecify;
  requires transitive dev.idempotency.core;
  requires transitive micrometer.core;

  exports dev.idempotency.micrometer;
}
