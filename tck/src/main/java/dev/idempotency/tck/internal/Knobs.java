package dev.idempotency.tck.internal;

import java.util.Locale;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The TCK's knobs: system properties, each with an environment-variable twin ({@code
 * idempotency.tck.rounds} is also {@code IDEMPOTENCY_TCK_ROUNDS}); the system property wins.
 * Defaults are sized for CI.
 */
public final class Knobs {
  /**
   * Replays one seed: every seeded test uses it, and the history tests run exactly that one
   * history.
   */
  public static final String SEED = "idempotency.tck.seed";

  /** Rounds per thread count in the concurrency gate. */
  public static final String ROUNDS = "idempotency.tck.rounds";

  /** Histories per stochastic test. */
  public static final String HISTORIES = "idempotency.tck.histories";

  /** The lease, in milliseconds, of the real-time profile used for SERVER_CLOCK stores. */
  public static final String SERVER_CLOCK_LEASE_MILLIS = "idempotency.tck.serverClockLeaseMillis";

  /** What a real-time check that came too late does: {@code fail} or {@code abort}. */
  public static final String TOO_SLOW = "idempotency.tck.tooSlow";

  /** Default rounds per thread count: 6 thread counts x 20 rounds = 120 races. */
  public static final int DEFAULT_ROUNDS = 20;

  /** Default histories per stochastic test. */
  public static final int DEFAULT_HISTORIES = 60;

  /** Default real lease for SERVER_CLOCK stores. */
  public static final int DEFAULT_SERVER_CLOCK_LEASE_MILLIS = 1000;

  private Knobs() {}

  /** The replayed seed, when one is set. */
  public static OptionalLong seed() {
    String v = raw(SEED);
    if (v == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          SEED + " must be a long (as printed by a failing test), but was \"" + v + "\"", e);
    }
  }

  /** Rounds per thread count in the concurrency gate. */
  public static int rounds() {
    return positiveInt(ROUNDS, DEFAULT_ROUNDS);
  }

  /** Histories per stochastic test. */
  public static int histories() {
    return positiveInt(HISTORIES, DEFAULT_HISTORIES);
  }

  /** The real lease of the SERVER_CLOCK profile, in milliseconds. */
  public static int serverClockLeaseMillis() {
    return positiveInt(SERVER_CLOCK_LEASE_MILLIS, DEFAULT_SERVER_CLOCK_LEASE_MILLIS);
  }

  /**
   * Whether a real-time check that came too late fails the test ({@code fail}) or aborts it ({@code
   * abort}). The default is {@code fail} when the environment variable {@code CI} is {@code true}
   * (an aborted test is a skip nobody reads there, and a run whose time rules were all skipped
   * would be green) and {@code abort} otherwise.
   */
  public static boolean tooSlowFails() {
    String v = raw(TOO_SLOW);
    if (v == null) {
      return "true".equalsIgnoreCase(System.getenv("CI"));
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "fail" -> true;
      case "abort" -> false;
      default ->
          throw new IllegalArgumentException(
              TOO_SLOW + " must be fail or abort, but was \"" + v + "\"");
    };
  }

  static int positiveInt(String name, int def) {
    String v = raw(name);
    if (v == null) {
      return def;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n <= 0) {
        throw new IllegalArgumentException(name + " must be > 0, but was " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          name + " must be a positive int, but was \"" + v + "\"", e);
    }
  }

  /** The knob's value from the system property or the environment; null when neither sets it. */
  private static @Nullable String raw(String name) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      v = System.getenv(name.toUpperCase(Locale.ROOT).replace('.', '_'));
    }
    return v == null || v.isBlank() ? null : v;
  }
}
