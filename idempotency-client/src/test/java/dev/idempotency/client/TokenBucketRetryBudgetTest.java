package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TokenBucketRetryBudgetTest {
  /**
   * 500 tokens buy 35 transient retries (14 each) and leave 10, which buy 2 throttled ones (5
   * each).
   */
  @Test
  void transientRetriesCost14AndThrottledOnes5() {
    TokenBucketRetryBudget budget = TokenBucketRetryBudget.ofDefaults();
    int granted = 0;
    while (budget.tryAcquire(RetryKind.TRANSIENT)) {
      granted++;
    }
    assertThat(granted).isEqualTo(35);
    assertThat(budget.available()).isEqualTo(10);
    assertThat(budget.tryAcquire(RetryKind.THROTTLING)).isTrue();
    assertThat(budget.tryAcquire(RetryKind.THROTTLING)).isTrue();
    assertThat(budget.tryAcquire(RetryKind.THROTTLING)).isFalse();
    assertThat(budget.available()).isZero();
  }

  @Test
  void aFullBucketBuys100ThrottledRetries() {
    TokenBucketRetryBudget budget = TokenBucketRetryBudget.ofDefaults();
    int granted = 0;
    while (budget.tryAcquire(RetryKind.THROTTLING)) {
      granted++;
    }
    assertThat(granted).isEqualTo(100);
  }

  /**
   * Each success refunds one token, never beyond the capacity; 14 successes earn one transient
   * retry back.
   */
  @Test
  void successesRefundOneTokenUpToTheCapacity() {
    TokenBucketRetryBudget budget = TokenBucketRetryBudget.builder().capacity(20).build();
    budget.onSuccess();
    assertThat(budget.available()).isEqualTo(20);
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isTrue();
    assertThat(budget.available()).isEqualTo(6);
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isFalse();
    for (int i = 0; i < 7; i++) {
      budget.onSuccess();
    }
    assertThat(budget.available()).isEqualTo(13);
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isFalse();
    budget.onSuccess();
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isTrue();
    assertThat(budget.available()).isZero();
  }

  /** Each configured cost and refund is the one spent and earned, not the default. */
  @Test
  void configuredCostsAndRefundAreTheOnesApplied() {
    TokenBucketRetryBudget budget =
        TokenBucketRetryBudget.builder()
            .capacity(30)
            .transientCost(10)
            .throttlingCost(3)
            .successRefund(4)
            .build();
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isTrue();
    assertThat(budget.available()).isEqualTo(20);
    assertThat(budget.tryAcquire(RetryKind.THROTTLING)).isTrue();
    assertThat(budget.available()).isEqualTo(17);
    budget.onSuccess();
    assertThat(budget.available()).isEqualTo(21);
  }

  /** A cost of zero never exhausts the budget; a refund of zero earns nothing back. */
  @Test
  void aZeroCostIsAlwaysGrantedAndAZeroRefundEarnsNothing() {
    TokenBucketRetryBudget budget =
        TokenBucketRetryBudget.builder().capacity(14).throttlingCost(0).successRefund(0).build();
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isTrue();
    assertThat(budget.available()).isZero();
    for (int i = 0; i < 3; i++) {
      assertThat(budget.tryAcquire(RetryKind.THROTTLING)).isTrue();
    }
    budget.onSuccess();
    assertThat(budget.available()).isZero();
    assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isFalse();
  }

  @Test
  void negativeCostsAndRefundsAreRefusedNamingTheSetting() {
    TokenBucketRetryBudget.Builder builder = TokenBucketRetryBudget.builder();
    assertThatThrownBy(() -> builder.transientCost(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transientCost");
    assertThatThrownBy(() -> builder.throttlingCost(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("throttlingCost");
    assertThatThrownBy(() -> builder.successRefund(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("successRefund");
  }

  /**
   * Concurrent callers never overspend: 8 threads racing for a 500-token bucket get exactly 35
   * retries.
   */
  @Test
  void concurrentAcquisitionNeverOverspends() throws InterruptedException {
    TokenBucketRetryBudget budget = TokenBucketRetryBudget.ofDefaults();
    AtomicInteger granted = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < 100; i++) {
                  if (budget.tryAcquire(RetryKind.TRANSIENT)) {
                    granted.incrementAndGet();
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(granted.get()).isEqualTo(35);
    assertThat(budget.available()).isEqualTo(10);
  }

  @Test
  void theUnlimitedBudgetNeverSaysNo() {
    RetryBudget budget = RetryBudget.unlimited();
    for (int i = 0; i < 10_000; i++) {
      assertThat(budget.tryAcquire(RetryKind.TRANSIENT)).isTrue();
    }
  }
}
