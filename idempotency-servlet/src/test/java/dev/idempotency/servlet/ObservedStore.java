package dev.idempotency.servlet;

import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Delegates to a real store and records what the claims returned, so tests can wait for a state,
 * not a time.
 */
final class ObservedStore extends DelegatingStore {
  final AtomicInteger claims = new AtomicInteger();
  final AtomicInteger inFlightClaims = new AtomicInteger();
  final ConcurrentLinkedQueue<ClaimOutcome> outcomes = new ConcurrentLinkedQueue<>();

  ObservedStore(KeyStore delegate) {
    super(delegate);
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    claims.incrementAndGet();
    ClaimOutcome outcome = super.claim(request);
    outcomes.add(outcome);
    if (outcome instanceof ClaimOutcome.InFlight) {
      inFlightClaims.incrementAndGet();
    }
    return outcome;
  }
}
