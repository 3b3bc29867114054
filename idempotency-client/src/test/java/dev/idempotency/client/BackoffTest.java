package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final RandomSource HALF = () -> 0.5;
  private static final RandomSource ALMOST_ONE = () -> Math.nextDown(1.0);
  private static final RandomSource ZERO = () -> 0.0;

  /**
   * Full jitter's ceiling doubles from the base and stops at the cap: 0.5, 1, 2, 4, 8, 16, 20, 20
   * s.
   */
  @Test
  void fullJitterCeilingDoublesUpToTheCap() {
    Backoff b = Backoff.fullJitter();
    assertThat(java.util.stream.IntStream.range(0, 8).mapToObj(b::ceiling).map(Duration::toMillis))
        .containsExactly(500L, 1000L, 2000L, 4000L, 8000L, 16000L, 20000L, 20000L);
    assertThat(b.ceiling(200)).isEqualTo(Duration.ofSeconds(20));
  }

  /** The draw scales the ceiling: random 0.5 gives half of min(cap, base * 2^n). */
  @Test
  void fullJitterIsTheDrawTimesTheCeiling() {
    Backoff b = Backoff.fullJitter();
    assertThat(b.delay(0, Duration.ZERO, HALF)).isEqualTo(Duration.ofMillis(250));
    assertThat(b.delay(1, Duration.ZERO, HALF)).isEqualTo(Duration.ofMillis(500));
    assertThat(b.delay(5, Duration.ZERO, HALF)).isEqualTo(Duration.ofSeconds(8));
    assertThat(b.delay(6, Duration.ZERO, HALF)).isEqualTo(Duration.ofSeconds(10));
    assertThat(b.delay(0, Duration.ZERO, ZERO)).isEqualTo(Duration.ZERO);
    assertThat(b.delay(9, Duration.ZERO, ALMOST_ONE))
        .isLessThan(Duration.ofSeconds(20))
        .isGreaterThan(Duration.ofMillis(19_999));
  }

  /** Whatever the draws, full jitter stays in [0, ceiling] over a long seeded run. */
  @Test
  void fullJitterStaysInsideItsBounds() {
    Backoff b = Backoff.fullJitter(Duration.ofMillis(100), Duration.ofSeconds(3));
    RandomSource r = RandomSource.seeded(42);
    for (int n = 0; n < 2_000; n++) {
      Duration d = b.delay(n % 12, Duration.ZERO, r);
      assertThat(d).isBetween(Duration.ZERO, b.ceiling(n % 12));
    }
  }

  /** Decorrelated jitter: min(cap, random(base, 3 * previous)), never below the base. */
  @Test
  void decorrelatedJitterGrowsFromThePreviousWait() {
    Backoff b = Backoff.decorrelatedJitter(Duration.ofMillis(500), Duration.ofSeconds(20));
    assertThat(b.delay(0, Duration.ZERO, ZERO)).isEqualTo(Duration.ofMillis(500));
    // previous 0.5 s (first retry): random(0.5, 1.5) at 0.5 -> 1.0 s
    assertThat(b.delay(0, Duration.ZERO, HALF)).isEqualTo(Duration.ofMillis(1000));
    // previous 4 s: random(0.5, 12) at 0.5 -> 6.25 s
    assertThat(b.delay(3, Duration.ofSeconds(4), HALF)).isEqualTo(Duration.ofMillis(6250));
    // previous 10 s: random(0.5, 30) near the top -> capped at 20 s
    assertThat(b.delay(4, Duration.ofSeconds(10), ALMOST_ONE)).isEqualTo(Duration.ofSeconds(20));
    RandomSource r = RandomSource.seeded(7);
    Duration prev = Duration.ZERO;
    for (int n = 0; n < 1_000; n++) {
      Duration d = b.delay(n, prev, r);
      assertThat(d).isBetween(Duration.ofMillis(500), Duration.ofSeconds(20));
      assertThat(d)
          .isLessThanOrEqualTo(prev.isZero() ? Duration.ofMillis(1500) : prev.multipliedBy(3));
      prev = d;
    }
  }

  @Test
  void invalidBoundsAreRejectedWithTheSettingNamed() {
    assertThatThrownBy(() -> Backoff.fullJitter(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("baseDelay must be > 0, but was PT0S");
    assertThatThrownBy(
            () -> Backoff.decorrelatedJitter(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxDelay must be >= baseDelay (PT2S), but was PT1S");
    assertThatThrownBy(() -> Backoff.fullJitter().delay(-1, Duration.ZERO, HALF))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retry must be >= 0");
    assertThatThrownBy(() -> Backoff.fullJitter().delay(0, Duration.ZERO, () -> 1.0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[0, 1)");
  }
}
