package dev.idempotency.client;

import java.time.InstantSource;
import java.util.Objects;

/**
 * What a retry policy takes from the world outside it: monotonic time, the wall clock, randomness,
 * waiting and logging. One value holds all five so that a test swaps them together (a fake time is
 * usually the ticker, the clock and the sleeper at once) and a policy's configuration stays apart
 * from the means of running it.
 *
 * <p>{@link #system()} is the real world and the policy's default. Each {@code withX} method
 * returns a copy with one part replaced:
 *
 * <pre>{@code
 * RetryEnvironment fake = RetryEnvironment.system()
 *     .withTicker(fakeTime).withClock(fakeTime).withSleeper(fakeTime).withRandom(() -> 0.5);
 * RetryPolicy policy = RetryPolicy.builder().environment(fake).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe; the parts it holds must be thread-safe too, since one policy serves
 * many concurrent calls. Two environments are equal when they hold the same parts.
 */
public final class RetryEnvironment {
  /** The name of the default logger. */
  public static final String DEFAULT_LOGGER_NAME = "dev.idempotency.client";

  private static final RetryEnvironment SYSTEM =
      new RetryEnvironment(
          Ticker.system(),
          InstantSource.system(),
          RandomSource.threadLocal(),
          Sleeper.system(),
          System.getLogger(DEFAULT_LOGGER_NAME));

  private final Ticker ticker;
  private final InstantSource clock;
  private final RandomSource random;
  private final Sleeper sleeper;
  private final System.Logger logger;

  private RetryEnvironment(
      Ticker ticker,
      InstantSource clock,
      RandomSource random,
      Sleeper sleeper,
      System.Logger logger) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.logger = Objects.requireNonNull(logger, "logger");
  }

  /**
   * The real world: {@link Ticker#system()}, {@link InstantSource#system()}, {@link
   * RandomSource#threadLocal()}, {@link Sleeper#system()} and {@code
   * System.getLogger("dev.idempotency.client")}.
   *
   * @return the system environment (always the same instance)
   */
  public static RetryEnvironment system() {
    return SYSTEM;
  }

  /**
   * Replaces the monotonic time source that deadlines and elapsed times are measured with.
   *
   * @param ticker the ticker
   * @return a copy with {@code ticker}
   */
  public RetryEnvironment withTicker(Ticker ticker) {
    return new RetryEnvironment(ticker, clock, random, sleeper, logger);
  }

  /**
   * Replaces the wall clock that {@code Retry-After} dates are compared with.
   *
   * @param clock the clock
   * @return a copy with {@code clock}
   */
  public RetryEnvironment withClock(InstantSource clock) {
    return new RetryEnvironment(ticker, clock, random, sleeper, logger);
  }

  /**
   * Replaces the random source of the jitter.
   *
   * @param random the random source, for example {@link RandomSource#seeded(long)}
   * @return a copy with {@code random}
   */
  public RetryEnvironment withRandom(RandomSource random) {
    return new RetryEnvironment(ticker, clock, random, sleeper, logger);
  }

  /**
   * Replaces what waits between attempts.
   *
   * @param sleeper the sleeper
   * @return a copy with {@code sleeper}
   */
  public RetryEnvironment withSleeper(Sleeper sleeper) {
    return new RetryEnvironment(ticker, clock, random, sleeper, logger);
  }

  /**
   * Replaces the logger that retries and stops are logged to.
   *
   * @param logger the logger
   * @return a copy with {@code logger}
   */
  public RetryEnvironment withLogger(System.Logger logger) {
    return new RetryEnvironment(ticker, clock, random, sleeper, logger);
  }

  /** Returns the monotonic time source. */
  public Ticker ticker() {
    return ticker;
  }

  /** Returns the wall clock, used to read {@code Retry-After} dates. */
  public InstantSource clock() {
    return clock;
  }

  /** Returns the random source of the jitter. */
  public RandomSource random() {
    return random;
  }

  /** Returns what waits between attempts. */
  public Sleeper sleeper() {
    return sleeper;
  }

  /** Returns the logger retries are logged to. */
  public System.Logger logger() {
    return logger;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RetryEnvironment e
        && ticker.equals(e.ticker)
        && clock.equals(e.clock)
        && random.equals(e.random)
        && sleeper.equals(e.sleeper)
        && logger.equals(e.logger);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ticker, clock, random, sleeper, logger);
  }

  /**
   * Names each part, or {@code system} for a part taken from {@link #system()}, whose lambdas print
   * as noise.
   */
  @Override
  public String toString() {
    return "RetryEnvironment[ticker="
        + part(ticker, SYSTEM.ticker)
        + ", clock="
        + part(clock, SYSTEM.clock)
        + ", random="
        + part(random, SYSTEM.random)
        + ", sleeper="
        + part(sleeper, SYSTEM.sleeper)
        + ", logger="
        + (logger == SYSTEM.logger ? "system" : logger.getName())
        + "]";
  }

  private static String part(Object part, Object systemPart) {
    return part == systemPart ? "system" : String.valueOf(part);
  }
}
