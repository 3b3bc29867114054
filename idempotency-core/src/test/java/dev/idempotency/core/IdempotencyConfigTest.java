package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    IdempotencyConfig c = IdempotencyConfig.ofDefaults();
    assertThat(c.replayWindow()).isEqualTo(Duration.ofHours(24));
    assertThat(c.retention()).isEqualTo(Duration.ofHours(72));
    assertThat(c.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.heartbeatInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.longestRetryChain()).isZero();
    assertThat(c.inFlightPolicy().waits()).isFalse();
  }

  /** Each refused setting is named in the message, with its value and the reason. */
  @Test
  void refusesBadSettingsNamingThem() {
    assertThatThrownBy(() -> IdempotencyConfig.builder().replayWindow(Duration.ZERO))
        .hasMessage("replayWindow must be > 0, but was PT0S");
    assertThatThrownBy(() -> IdempotencyConfig.builder().lease(Duration.ofMillis(-1)))
        .hasMessageContaining("lease must be > 0");
    assertThatThrownBy(() -> IdempotencyConfig.builder().retention(Duration.ofHours(1)).build())
        .hasMessageContaining("retention (PT1H) must be >= replayWindow (PT24H)");
    assertThatThrownBy(
            () -> IdempotencyConfig.builder().longestRetryChain(Duration.ofDays(7)).build())
        .hasMessageContaining("replayWindow (PT24H) must be >= longestRetryChain (PT168H)")
        .hasMessageContaining("lengthen replayWindow");
    assertThatThrownBy(
            () ->
                IdempotencyConfig.builder()
                    .lease(Duration.ofSeconds(5))
                    .heartbeatInterval(Duration.ofSeconds(5))
                    .build())
        .hasMessageContaining("heartbeatInterval (PT5S) must be < lease (PT5S)");
    assertThatThrownBy(() -> InFlightPolicy.waitUpTo(Duration.ofSeconds(1), Duration.ofSeconds(2)))
        .hasMessageContaining("pollInterval must be > 0 and <= maxWait");
  }

  /** A derived heartbeat interval stays derived in a copy: a new lease gets its own third. */
  @Test
  void aCopyWithAnotherLeaseDerivesItsOwnHeartbeat() {
    IdempotencyConfig copy =
        IdempotencyConfig.ofDefaults().toBuilder().lease(Duration.ofSeconds(6)).build();
    assertThat(copy.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
    IdempotencyConfig explicit =
        IdempotencyConfig.builder().heartbeatInterval(Duration.ofSeconds(4)).build();
    assertThat(explicit.toBuilder().lease(Duration.ofSeconds(60)).build().heartbeatInterval())
        .isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void aLongRetryChainIsAcceptedWithAWindowToMatch() {
    IdempotencyConfig c =
        IdempotencyConfig.builder()
            .longestRetryChain(Duration.ofDays(7))
            .replayWindow(Duration.ofDays(8))
            .retention(Duration.ofDays(10))
            .build();
    assertThat(c.toBuilder().build().replayWindow()).isEqualTo(Duration.ofDays(8));
  }
}
