package dev.idempotency.client;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The randomness behind jitter, injected so that a test can fix every draw.
 *
 * <p>Implementations must be thread-safe: one policy serves many concurrent calls.
 */
@FunctionalInterface
public interface RandomSource {
  /**
   * Draws a uniformly distributed value.
   *
   * @return a value in {@code [0.0, 1.0)}
   */
  double nextDouble();

  /**
   * The default: {@link ThreadLocalRandom}, uncontended across threads.
   *
   * @return a thread-local random source
   */
  static RandomSource threadLocal() {
    return () -> ThreadLocalRandom.current().nextDouble();
  }

  /**
   * A reproducible source: the same seed yields the same sequence of draws (when drawn from one
   * thread).
   *
   * @param seed the seed
   * @return a seeded random source, thread-safe because {@link Random} is
   */
  static RandomSource seeded(long seed) {
    Random random = new Random(seed);
    return random::nextDouble;
  }
}
