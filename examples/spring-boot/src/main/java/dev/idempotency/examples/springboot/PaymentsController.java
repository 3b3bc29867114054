package dev.idempotency.examples.springboot;

import java.security.Principal;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Three ways a Spring MVC handler answers, each guarded the same: a {@code ResponseEntity}, a
 * {@code @ResponseBody} object, and an exception a {@code @ControllerAdvice} turns into an error.
 * {@link #executions()} counts the handler's runs, which is what a duplicate must not add to.
 */
@RestController
class PaymentsController {
  record PaymentRequest(String orderId, long amountCents) {}

  record Payment(String id, String orderId, long amountCents, String payer) {}

  record Refund(String id, String paymentId) {}

  record RefundRequest(String paymentId) {}

  /** A payment the provider declined. */
  static final class DeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeclinedException(String message) {
      super(message);
    }
  }

  private final AtomicInteger executions = new AtomicInteger();
  private final HandlerGate gate;

  PaymentsController(HandlerGate gate) {
    this.gate = gate;
  }

  @PostMapping("/payments")
  ResponseEntity<Payment> pay(@RequestBody PaymentRequest request, Principal caller)
      throws InterruptedException {
    executions.incrementAndGet();
    gate.passThrough();
    if (request.amountCents() <= 0) {
      throw new DeclinedException("amount must be positive, was " + request.amountCents());
    }
    Payment payment =
        new Payment(
            UUID.randomUUID().toString(),
            request.orderId(),
            request.amountCents(),
            caller.getName());
    return ResponseEntity.status(HttpStatus.CREATED)
        .header("Location", "/payments/" + payment.id())
        .body(payment);
  }

  @PostMapping("/refunds")
  @ResponseStatus(HttpStatus.CREATED)
  Refund refund(@RequestBody RefundRequest request) {
    executions.incrementAndGet();
    return new Refund(UUID.randomUUID().toString(), request.paymentId());
  }

  /** How often a handler ran. */
  int executions() {
    return executions.get();
  }
}
