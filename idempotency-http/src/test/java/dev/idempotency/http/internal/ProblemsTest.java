package dev.idempotency.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The handler's own responses: the headers it adds. */
class ProblemsTest {
  /** Retry-After is whole seconds, rounded up, at least one. */
  @Test
  void retryAfterSeconds() {
    assertThat(Problems.seconds(Duration.ZERO)).isEqualTo("1");
    assertThat(Problems.seconds(Duration.ofMillis(-5))).isEqualTo("1");
    assertThat(Problems.seconds(Duration.ofMillis(1001))).isEqualTo("2");
    assertThat(Problems.seconds(Duration.ofSeconds(30))).isEqualTo("30");
  }

  /**
   * The problem for an in-flight key carries the rounded Retry-After and the contract's members.
   */
  @Test
  void inFlightProblemCarriesRetryAfter() {
    Problems problems = new Problems("https://example.test/p/", Duration.ofSeconds(5));
    var r = problems.inFlight(Duration.ofMillis(1500));
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.firstHeader("Retry-After")).hasValue("2");
    assertThat(r.bodyAsUtf8())
        .startsWith(
            "{\"type\":\"https://example.test/p/idempotency_request_in_flight\"," + "\"title\":")
        .contains("\"code\":\"idempotency_request_in_flight\",\"retryable\":true}");
  }
}
