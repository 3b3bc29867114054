/**
 * The client half on Resilience4j 2: {@link
 * dev.idempotency.client.resilience4j.IdempotentResilience}, the stack Retry, CircuitBreaker,
 * RateLimiter, Bulkhead in one call, with the key minted once outside the retry and every retry
 * decision taken by {@code idempotency-client}'s policy.
 */
// Resilience4j ships as automatic modules; the stack takes its types, so they are required
// transitively, which javac warns about for any automatic module.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.idempotency.client.resilience4j {
  requires static org.jspecify;
  requires transitive dev.idempotency.client;
  requires transitive io.github.resilience4j.circuitbreaker;
  requires transitive io.github.resilience4j.ratelimiter;
  requires transitive io.github.resilience4j.bulkhead;
  requires io.github.resilience4j.retry;
  requires io.github.resilience4j.core;

  exports dev.idempotency.client.resilience4j;
}
