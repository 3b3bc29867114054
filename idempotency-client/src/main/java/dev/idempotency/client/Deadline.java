package dev.idempotency.client;

import java.time.Duration;
import java.util.Objects;

/**
 * One overall deadline for a logical call, set once at the top and consulted before every attempt
 * and every sleep: no attempt starts, and no sleep runs, past it. Each attempt's timeout is
 * budgeted inside what is left, and the {@code java.net.http} adapter enforces it through the
 * response body.
 *
 * <p>A deadline carries the {@link Ticker} it was measured with, so comparing it with another time
 * source is not possible by accident. Immutable and thread-safe: a deadline taken from an inbound
 * request can be passed down to every outbound call it makes.
 */
public final class Deadline {
  private final Ticker ticker;
  private final long startNanos;
  private final long budgetNanos;

  private Deadline(Ticker ticker, long startNanos, long budgetNanos) {
    this.ticker = ticker;
    this.startNanos = startNanos;
    this.budgetNanos = budgetNanos;
  }

  /**
   * A deadline {@code budget} from now, measured by the system ticker.
   *
   * @param budget the time allowed, {@code > 0}
   * @return the deadline
   * @throws IllegalArgumentException if {@code budget} is zero or negative
   */
  public static Deadline after(Duration budget) {
    return after(budget, Ticker.system());
  }

  /**
   * A deadline {@code budget} from now, measured by {@code ticker}.
   *
   * @param budget the time allowed, {@code > 0}
   * @param ticker the time source
   * @return the deadline
   * @throws IllegalArgumentException if {@code budget} is zero or negative
   */
  public static Deadline after(Duration budget, Ticker ticker) {
    Objects.requireNonNull(budget, "budget");
    Objects.requireNonNull(ticker, "ticker");
    if (budget.isZero() || budget.isNegative()) {
      throw new IllegalArgumentException("deadline must be > 0, but was " + budget);
    }
    return new Deadline(ticker, ticker.nanoTime(), saturatedNanos(budget));
  }

  /**
   * The time left, never negative.
   *
   * @return the time left before the deadline, {@link Duration#ZERO} once it has passed
   */
  public Duration remaining() {
    return Duration.ofNanos(remainingNanos());
  }

  /**
   * The time left in nanoseconds, never negative.
   *
   * @return nanoseconds left, {@code 0} once the deadline has passed
   */
  public long remainingNanos() {
    return Math.max(0, budgetNanos - elapsedNanos());
  }

  /**
   * Whether the deadline has passed.
   *
   * @return {@code true} if no time is left
   */
  public boolean isExpired() {
    return remainingNanos() == 0;
  }

  /**
   * The time since the deadline was set.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return Duration.ofNanos(elapsedNanos());
  }

  /**
   * The budget the deadline was set with.
   *
   * @return the total time allowed
   */
  public Duration budget() {
    return Duration.ofNanos(budgetNanos);
  }

  /**
   * The ticker the deadline is measured with.
   *
   * @return the ticker
   */
  public Ticker ticker() {
    return ticker;
  }

  private long elapsedNanos() {
    return Math.max(0, ticker.nanoTime() - startNanos);
  }

  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  @Override
  public String toString() {
    return "Deadline[budget=" + budget() + ", remaining=" + remaining() + "]";
  }
}
