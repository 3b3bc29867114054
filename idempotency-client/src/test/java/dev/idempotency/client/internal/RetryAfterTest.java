package dev.idempotency.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void deltaSeconds() {
    assertThat(RetryAfter.parse("0", NOW)).contains(Duration.ZERO);
    assertThat(RetryAfter.parse(" 120 ", NOW)).contains(Duration.ofSeconds(120));
    assertThat(RetryAfter.parse("99999999999999999999", NOW).orElseThrow())
        .isGreaterThan(Duration.ofDays(3650));
  }

  /** An HTTP-date is measured against the injected wall clock; a date in the past means "now". */
  @Test
  void httpDate() {
    assertThat(RetryAfter.parse("Thu, 01 Jan 2026 00:00:07 GMT", NOW))
        .contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse("Wed, 31 Dec 2025 23:59:00 GMT", NOW)).contains(Duration.ZERO);
  }

  @Test
  void garbageIsIgnored() {
    assertThat(RetryAfter.parse(null, NOW)).isEmpty();
    assertThat(RetryAfter.parse("", NOW)).isEmpty();
    assertThat(RetryAfter.parse("-5", NOW)).isEmpty();
    assertThat(RetryAfter.parse("1.5", NOW)).isEmpty();
    assertThat(RetryAfter.parse("soon", NOW)).isEmpty();
  }
}
