package dev.idempotency.examples;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fake card network that charges every time it is called: it is not idempotent, like most systems
 * a payments API calls out to. It counts charges per payment, so the demo can count the duplicates
 * a retry caused.
 */
final class CardNetwork {
  private final Map<String, LongAdder> chargesPerPayment = new ConcurrentHashMap<>();
  private final AtomicLong authorizations = new AtomicLong();

  /** Charges the card for {@code paymentId}; returns an authorization code. */
  String charge(String paymentId, long amountCents) {
    if (amountCents <= 0) {
      throw new IllegalArgumentException("amount must be positive");
    }
    chargesPerPayment.computeIfAbsent(paymentId, k -> new LongAdder()).increment();
    return "auth_" + authorizations.incrementAndGet();
  }

  /** Every charge made. */
  long charges() {
    return chargesPerPayment.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Payments charged at least once. */
  long paymentsCharged() {
    return chargesPerPayment.size();
  }

  /** Charges beyond the first for the same payment: money taken twice. */
  long duplicateCharges() {
    return charges() - paymentsCharged();
  }
}
