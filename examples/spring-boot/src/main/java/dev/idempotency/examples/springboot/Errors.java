package dev.idempotency.examples.springboot;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The API's errors as problem details: a declined payment is 402. The idempotency filter stores and
 * replays this answer like any other (a retry of a declined payment gets the same 402).
 */
@RestControllerAdvice
class Errors {
  @ExceptionHandler(PaymentsController.DeclinedException.class)
  ProblemDetail declined(PaymentsController.DeclinedException e) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.PAYMENT_REQUIRED, e.getMessage());
    problem.setProperty("code", "card_declined");
    return problem;
  }
}
