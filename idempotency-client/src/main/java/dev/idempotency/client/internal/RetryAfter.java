package dev.idempotency.client.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.chrono.IsoChronology;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.format.TextStyle;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Parses {@code Retry-After}: delta-seconds or an HTTP-date (RFC 9110 section 10.2.3), the date in
 * any of the three forms a recipient must accept (section 5.6.7): the IMF-fixdate {@code Sun, 06
 * Nov 1994 08:49:37 GMT}, and the obsolete RFC 850 {@code Sunday, 06-Nov-94 08:49:37 GMT} and
 * asctime {@code Sun Nov 6 08:49:37 1994}. Every adapter reads the header through this one parser
 * (in {@link RetryRun}).
 */
public final class RetryAfter {
  private RetryAfter() {}

  /** The asctime form: no zone (it is GMT), the day padded with a space to two characters. */
  private static final DateTimeFormatter ASCTIME =
      new DateTimeFormatterBuilder()
          .appendText(ChronoField.DAY_OF_WEEK, TextStyle.SHORT)
          .appendLiteral(' ')
          .appendText(ChronoField.MONTH_OF_YEAR, TextStyle.SHORT)
          .appendLiteral(' ')
          .padNext(2, ' ')
          .appendValue(ChronoField.DAY_OF_MONTH)
          .appendLiteral(' ')
          .append(timeOfDay())
          .appendLiteral(' ')
          .appendValue(ChronoField.YEAR, 4)
          .toFormatter(Locale.ENGLISH)
          .withChronology(IsoChronology.INSTANCE)
          .withResolverStyle(ResolverStyle.STRICT);

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
    return httpDate(v, now)
        .map(
            at -> {
              Duration d = Duration.between(now, at);
              return d.isNegative() ? Duration.ZERO : d;
            });
  }

  /**
   * The instant of an HTTP-date in any of its three forms, or empty for anything else (a wrong
   * weekday included: the date is not what the server meant to say).
   */
  static Optional<Instant> httpDate(String v, Instant now) {
    try {
      if (v.indexOf(',') < 0) {
        return Optional.of(LocalDateTime.parse(v, ASCTIME).toInstant(ZoneOffset.UTC));
      }
      if (v.indexOf('-') >= 0) {
        return Optional.of(ZonedDateTime.parse(v, rfc850(now)).toInstant());
      }
      // the IMF-fixdate; RFC 1123's parser also takes its lenient relatives (a one-digit day)
      return Optional.of(ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /**
   * The RFC 850 form. Its two-digit year is read as the year within 50 years of now: RFC 9110 takes
   * a year that would be more than 50 years in the future for the most recent past year with the
   * same two digits.
   */
  private static DateTimeFormatter rfc850(Instant now) {
    int thisYear = now.atOffset(ZoneOffset.UTC).getYear();
    return new DateTimeFormatterBuilder()
        .appendText(ChronoField.DAY_OF_WEEK, TextStyle.FULL)
        .appendLiteral(", ")
        .appendValue(ChronoField.DAY_OF_MONTH, 2)
        .appendLiteral('-')
        .appendText(ChronoField.MONTH_OF_YEAR, TextStyle.SHORT)
        .appendLiteral('-')
        .appendValueReduced(ChronoField.YEAR, 2, 2, LocalDate.of(thisYear - 49, 1, 1))
        .appendLiteral(' ')
        .append(timeOfDay())
        .appendLiteral(" GMT")
        .toFormatter(Locale.ENGLISH)
        .withChronology(IsoChronology.INSTANCE)
        .withResolverStyle(ResolverStyle.STRICT)
        .withZone(ZoneOffset.UTC);
  }

  private static DateTimeFormatter timeOfDay() {
    return new DateTimeFormatterBuilder()
        .appendValue(ChronoField.HOUR_OF_DAY, 2)
        .appendLiteral(':')
        .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
        .appendLiteral(':')
        .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
        .toFormatter(Locale.ENGLISH);
  }
}
