package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.testing.RecordingLogger;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class RetryEnvironmentTest {
  private final FakeTime time = new FakeTime();

  /**
   * The system environment is one shared value holding the real parts, and every policy starts from
   * it.
   */
  @Test
  void theSystemEnvironmentIsTheRealWorldAndThePolicyDefault() {
    RetryEnvironment system = RetryEnvironment.system();
    assertThat(RetryEnvironment.system()).isSameAs(system);
    assertThat(system.clock()).isEqualTo(InstantSource.system());
    assertThat(system.sleeper()).isSameAs(Sleeper.system());
    assertThat(system.logger().getName()).isEqualTo("dev.idempotency.client");
    long before = System.nanoTime();
    long reading = system.ticker().nanoTime();
    assertThat(reading).isBetween(before, System.nanoTime());
    assertThat(system.random().nextDouble()).isBetween(0.0, 1.0).isNotEqualTo(1.0);
    assertThat(RetryPolicy.ofDefaults().environment()).isSameAs(system);
  }

  /** Each withX replaces its one part in a copy; the environment it was called on keeps its own. */
  @Test
  void eachWithReplacesOnePartInACopy() {
    RecordingLogger logger = new RecordingLogger();
    RandomSource half = () -> 0.5;
    RetryEnvironment system = RetryEnvironment.system();

    RetryEnvironment ticker = system.withTicker(time);
    assertThat(ticker.ticker()).isSameAs(time);
    assertThat(ticker.clock()).isSameAs(system.clock());
    assertThat(ticker.random()).isSameAs(system.random());
    assertThat(ticker.sleeper()).isSameAs(system.sleeper());
    assertThat(ticker.logger()).isSameAs(system.logger());

    RetryEnvironment all =
        ticker.withClock(time).withRandom(half).withSleeper(time).withLogger(logger);
    assertThat(all.ticker()).isSameAs(time);
    assertThat(all.clock()).isSameAs(time);
    assertThat(all.random()).isSameAs(half);
    assertThat(all.sleeper()).isSameAs(time);
    assertThat(all.logger()).isSameAs(logger);

    assertThat(ticker.clock()).isSameAs(system.clock());
    assertThat(system.ticker()).isNotSameAs(time);
    assertThat(system.logger()).isNotSameAs(logger);
  }

  @Test
  void nullPartsAreRefusedWithTheSettingNamed() {
    RetryEnvironment system = RetryEnvironment.system();
    assertThatThrownBy(() -> system.withTicker(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ticker");
    assertThatThrownBy(() -> system.withClock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clock");
    assertThatThrownBy(() -> system.withRandom(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("random");
    assertThatThrownBy(() -> system.withSleeper(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("sleeper");
    assertThatThrownBy(() -> system.withLogger(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("logger");
    assertThatThrownBy(() -> RetryPolicy.builder().environment(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("environment");
  }

  /**
   * Environments of the same parts are equal; toString names the replaced parts and calls the rest
   * system.
   */
  @Test
  void environmentsOfTheSamePartsAreEqual() {
    RetryEnvironment a = time.environment();
    RetryEnvironment b = time.environment();
    assertThat(a).isNotSameAs(b).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a)
        .isNotEqualTo(RetryEnvironment.system())
        .isNotEqualTo(b.withTicker(new FakeTime()));
    assertThat(RetryEnvironment.system().withLogger(RecordingLogger.silent()))
        .hasToString(
            "RetryEnvironment[ticker=system, clock=system, random=system, sleeper=system, logger=recording]");
  }

  /** A derived policy keeps the environment; a new one replaces it whole. */
  @Test
  void thePolicyKeepsItsEnvironmentThroughToBuilder() {
    RetryPolicy fake = RetryPolicy.builder().environment(time.environment()).build();
    assertThat(fake.environment()).isEqualTo(time.environment());
    assertThat(fake.toBuilder().maxAttempts(5).build().environment()).isSameAs(fake.environment());
    assertThat(fake.toBuilder().environment(RetryEnvironment.system()).build().environment())
        .isSameAs(RetryEnvironment.system());
  }
}
