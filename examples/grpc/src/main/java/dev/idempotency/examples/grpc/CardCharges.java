package dev.idempotency.examples.grpc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The card network behind the service: it charges every time it is called, as most systems a
 * payments service calls out to do, and counts the charges per payment so that the demo can count
 * the ones a retry caused.
 */
final class CardCharges {
  private final Map<String, LongAdder> perPayment = new ConcurrentHashMap<>();
  private final AtomicLong authorizations = new AtomicLong();

  /** Charges the card for {@code paymentId}; returns a new authorization code. */
  String charge(String paymentId) {
    perPayment.computeIfAbsent(paymentId, k -> new LongAdder()).increment();
    return "auth_" + authorizations.incrementAndGet();
  }

  /** The charges made for one payment. */
  long chargesOf(String paymentId) {
    LongAdder charges = perPayment.get(paymentId);
    return charges == null ? 0 : charges.sum();
  }

  /** Every charge made. */
  long charges() {
    return perPayment.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Charges beyond the first for the same payment: money taken twice. */
  long duplicateCharges() {
    return charges() - perPayment.size();
  }
}
