package dev.idempotency.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
  void imfFixdate() {
    assertThat(RetryAfter.parse("Thu, 01 Jan 2026 00:00:07 GMT", NOW))
        .contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse("Wed, 31 Dec 2025 23:59:00 GMT", NOW)).contains(Duration.ZERO);
  }

  /**
   * RFC 9110 section 5.6.7: a recipient accepts the obsolete RFC 850 form, whose two-digit year is
   * the one within 50 years of now (a year more than 50 years ahead is the century before).
   */
  @Test
  void rfc850Date() {
    assertThat(RetryAfter.parse("Thursday, 01-Jan-26 00:00:07 GMT", NOW))
        .contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse("Friday, 02-Jan-26 00:00:00 GMT", NOW))
        .contains(Duration.ofDays(1));
    // 2076 is 50 years ahead: still this century; 2077 would be more than 50, so 77 is 1977
    assertThat(RetryAfter.parse("Wednesday, 01-Jan-76 00:00:00 GMT", NOW).orElseThrow())
        .isGreaterThan(Duration.ofDays(365 * 49));
    assertThat(RetryAfter.parse("Saturday, 01-Jan-77 00:00:00 GMT", NOW)).contains(Duration.ZERO);
  }

  /** The other obsolete form, C's asctime(): no zone (it is GMT), a space-padded day. */
  @Test
  void asctimeDate() {
    assertThat(RetryAfter.parse("Thu Jan  1 00:00:07 2026", NOW)).contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse("Sat Jan 10 00:00:00 2026", NOW)).contains(Duration.ofDays(9));
    assertThat(RetryAfter.parse("Sun Nov  6 08:49:37 1994", NOW)).contains(Duration.ZERO);
  }

  /** The same instant in all three forms asks for the same wait. */
  @Test
  void theThreeFormsAgree() {
    Instant now = Instant.parse("1994-11-06T08:49:00Z");
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now))
        .contains(Duration.ofSeconds(37))
        .isEqualTo(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now))
        .isEqualTo(RetryAfter.parse("Sun Nov  6 08:49:37 1994", now));
  }

  @Test
  void garbageIsIgnored() {
    assertThat(RetryAfter.parse(null, NOW)).isEmpty();
    assertThat(RetryAfter.parse("", NOW)).isEmpty();
    assertThat(RetryAfter.parse("-5", NOW)).isEmpty();
    assertThat(RetryAfter.parse("1.5", NOW)).isEmpty();
    assertThat(RetryAfter.parse("soon", NOW)).isEmpty();
  }

  /** Malformed dates of each form are ignored (no wait from them), never an exception. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "Thu, 01 Jan 2026 00:00:07", // IMF-fixdate without its zone
        "Thu, 01 Jan 2026 00:00:07 PST", // another zone
        "Thu, 32 Jan 2026 00:00:07 GMT", // no such day
        "Thu, 01 Foo 2026 00:00:07 GMT", // no such month
        "Fri, 01 Jan 2026 00:00:07 GMT", // the wrong weekday
        "Thu, 01 Jan 2026 25:00:07 GMT", // no such hour
        "Thursday, 01-Jan-2026 00:00:07 GMT", // RFC 850 with four digits
        "Thursday, 01-Jan-26 00:00:07", // RFC 850 without its zone
        "Thursday 01-Jan-26 00:00:07 GMT", // RFC 850 without its comma
        "Thu Jan 1 00:00:07 2026", // asctime without the day's padding
        "Thu Jan  1 00:00:07", // asctime without its year
        "Thu Jan  1 00:00:07 2026 GMT", // asctime with a zone it does not have
        "Thu Jan 01 00:00:07 26", // asctime with a two-digit year
        "Thu, 01 Jan 2026 00:00:07 GMT trailing",
        "Thu,\t01 Jan 2026 00:00:07 GMT"
      })
  void malformedDatesAreIgnored(String value) {
    assertThat(RetryAfter.parse(value, NOW)).as(value).isEmpty();
  }
}
