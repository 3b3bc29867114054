package dev.idempotency.client.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Parses {@code Retry-After}: delta-seconds or an HTTP-date (RFC 9110 section 10.2.3). */
public final class RetryAfter {
  private RetryAfter() {}

  /**
   * The wait a {@code Retry-After} header asks for.
   *
   * @param value the header value, or {@code null}
   * @param now the wall clock's now, for dates
   * @return the wait it asks for (a date in the past asks for zero), or empty if absent or
   *     unparseable
   */
  public static Optional<Duration> parse(@Nullable String value, Instant now) {
    if (value == null) {
      return Optional.empty();
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // more than 12 digits is beyond any deadline; saturate rather than overflow
      return Optional.of(
          Duration.ofSeconds(v.length() > 12 ? 999_999_999_999L : Long.parseLong(v)));
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      return Optional.of(d.isNegative() ? Duration.ZERO : d);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
