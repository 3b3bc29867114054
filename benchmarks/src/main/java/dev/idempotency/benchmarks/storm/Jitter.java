package dev.idempotency.benchmarks.storm;

import java.util.SplittableRandom;

/**
 * The four backoff schedules of Marc Brooker's "Exponential Backoff And Jitter" (AWS Architecture
 * Blog, 2015). Only full jitter (the default) and decorrelated jitter are offered by {@code
 * idempotency-client}; no jitter and equal jitter are here to show why.
 */
enum Jitter {
  /** {@code min(cap, base * 2^attempt)}: every client that failed together retries together. */
  NONE {
    @Override
    double nextSleep(
        double base, double cap, int attempt, double previous, SplittableRandom random) {
      return Math.min(cap, base * Math.pow(2, attempt));
    }
  },
  /** {@code v/2 + random(0, v/2)} with {@code v = min(cap, base * 2^attempt)}. */
  EQUAL {
    @Override
    double nextSleep(
        double base, double cap, int attempt, double previous, SplittableRandom random) {
      double v = Math.min(cap, base * Math.pow(2, attempt));
      return v / 2 + random.nextDouble() * v / 2;
    }
  },
  /** {@code random(0, min(cap, base * 2^attempt))}: the library's default. */
  FULL {
    @Override
    double nextSleep(
        double base, double cap, int attempt, double previous, SplittableRandom random) {
      return random.nextDouble() * Math.min(cap, base * Math.pow(2, attempt));
    }
  },
  /** {@code min(cap, random(base, 3 * previous))}: the library's one alternative. */
  DECORRELATED {
    @Override
    double nextSleep(
        double base, double cap, int attempt, double previous, SplittableRandom random) {
      double hi = Math.max(base, 3 * previous);
      return Math.min(cap, base + random.nextDouble() * (hi - base));
    }
  };

  /**
   * The sleep before retry number {@code attempt} (0-based), in the same unit as {@code base} and
   * {@code cap}.
   *
   * @param previous the previous sleep ({@code base} before the first retry), used by decorrelated
   *     jitter only
   */
  abstract double nextSleep(
      double base, double cap, int attempt, double previous, SplittableRandom random);
}
