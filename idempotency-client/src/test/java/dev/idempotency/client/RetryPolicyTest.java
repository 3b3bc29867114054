package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  /** The defaults are the documented ones. */
  @Test
  void defaults() {
    RetryPolicy p = RetryPolicy.ofDefaults();
    assertThat(p.maxAttempts()).isEqualTo(3);
    assertThat(p.backoff())
        .isEqualTo(Backoff.fullJitter(Duration.ofMillis(500), Duration.ofSeconds(20)));
    assertThat(p.deadline()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.attemptTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.retryOn500()).isFalse();
    assertThat(p.idempotentMethods()).containsExactlyInAnyOrder("GET", "HEAD", "OPTIONS", "TRACE");
    assertThat(p.budget()).isInstanceOf(TokenBucketRetryBudget.class);
    assertThat(p.budget().available()).isEqualTo(500);
  }

  @Test
  void settingsAreValidatedEagerlyWithTheSettingNamed() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be between 1 and 10, but was 0");
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(11))
        .hasMessage("maxAttempts must be between 1 and 10, but was 11");
    assertThatThrownBy(() -> RetryPolicy.builder().deadline(Duration.ZERO))
        .hasMessage("deadline must be > 0, but was PT0S");
    assertThatThrownBy(() -> RetryPolicy.builder().attemptTimeout(Duration.ofSeconds(-1)))
        .hasMessage("attemptTimeout must be > 0, but was PT-1S");
    assertThatThrownBy(() -> RetryPolicy.builder().idempotentMethods("GET", "post"))
        .hasMessageContaining(
            "idempotentMethods must not contain blank, POST or PATCH, but had 'post'");
    assertThatThrownBy(() -> RetryPolicy.builder().budget(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("budget");
    assertThatThrownBy(() -> TokenBucketRetryBudget.builder().capacity(0))
        .hasMessage("capacity must be >= 1, but was 0");
  }

  /**
   * Every built policy gets its own bucket; toBuilder keeps the same one, so derived policies share
   * it.
   */
  @Test
  void budgetsAreSharedOnlyOnPurpose() {
    RetryPolicy a = RetryPolicy.ofDefaults();
    RetryPolicy b = RetryPolicy.ofDefaults();
    RetryPolicy derived = a.toBuilder().maxAttempts(5).build();
    assertThat(a.budget()).isNotSameAs(b.budget());
    assertThat(derived.budget()).isSameAs(a.budget());
    assertThat(derived.maxAttempts()).isEqualTo(5);
    assertThat(a.maxAttempts()).isEqualTo(3);
  }

  @Test
  void putAndDeleteCanBeDeclaredIdempotent() {
    RetryPolicy p = RetryPolicy.builder().idempotentMethods("get", "PUT", "delete").build();
    assertThat(p.isIdempotentMethod("put")).isTrue();
    assertThat(p.isIdempotentMethod("DELETE")).isTrue();
    assertThat(p.isIdempotentMethod("HEAD")).isFalse();
    assertThat(RetryPolicy.ofDefaults().isIdempotentMethod("PUT")).isFalse();
  }
}
