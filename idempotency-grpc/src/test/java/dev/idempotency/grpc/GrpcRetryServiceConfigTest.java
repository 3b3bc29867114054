package dev.idempotency.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.RetryBudget;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.TokenBucketRetryBudget;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy → service config mapping; GrpcOwnRetriesTest runs it in a real channel. */
class GrpcRetryServiceConfigTest {
  @Test
  void theDefaultPolicyBecomesFullJitterOverTheAllowlistWithOneDeadlineAndThrottling() {
    Map<String, Object> config =
        GrpcRetryServiceConfig.forServices(RetryPolicy.ofDefaults(), "shop.PaymentService");

    @SuppressWarnings("unchecked")
    Map<String, Object> method = ((List<Map<String, Object>>) config.get("methodConfig")).get(0);
    assertThat(method.get("name")).isEqualTo(List.of(Map.of("service", "shop.PaymentService")));
    assertThat(method.get("timeout")).isEqualTo("30s");
    assertThat(method.get("retryPolicy"))
        .isEqualTo(
            Map.of(
                "maxAttempts",
                3.0,
                "initialBackoff",
                "0.5s",
                "maxBackoff",
                "20s",
                "backoffMultiplier",
                2.0,
                "retryableStatusCodes",
                List.of("UNAVAILABLE", "RESOURCE_EXHAUSTED", "ABORTED")));
    // 500 tokens at 14 per transient retry: 35 retries; gRPC stops at half its tokens
    assertThat(config.get("retryThrottling"))
        .isEqualTo(Map.of("maxTokens", 71.0, "tokenRatio", 0.071));
  }

  @Test
  void neverRetriesWhatTheCallerMustFix() {
    @SuppressWarnings("unchecked")
    List<String> codes =
        (List<String>)
            GrpcRetryServiceConfig.retryPolicy(RetryPolicy.ofDefaults())
                .get("retryableStatusCodes");
    for (Status.Code never : GrpcRetryServiceConfig.NEVER_RETRIED) {
      assertThat(codes).doesNotContain(never.name());
    }
    assertThat(GrpcRetryServiceConfig.NEVER_RETRIED)
        .containsExactlyInAnyOrder(
            Status.Code.INVALID_ARGUMENT,
            Status.Code.PERMISSION_DENIED,
            Status.Code.UNAUTHENTICATED);
  }

  @Test
  void aCustomPolicyKeepsItsNumbersAndAnotherBudgetHasNoThrottling() {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(5)
            .backoff(Backoff.decorrelatedJitter(Duration.ofMillis(250), Duration.ofMillis(1500)))
            .deadline(Duration.ofMillis(2500))
            .budget(RetryBudget.unlimited())
            .build();
    Map<String, Object> config = GrpcRetryServiceConfig.forServices(policy, "a.A", "b.B");

    @SuppressWarnings("unchecked")
    Map<String, Object> method = ((List<Map<String, Object>>) config.get("methodConfig")).get(0);
    assertThat(method.get("name"))
        .isEqualTo(List.of(Map.of("service", "a.A"), Map.of("service", "b.B")));
    assertThat(method.get("timeout")).isEqualTo("2.5s");
    @SuppressWarnings("unchecked")
    Map<String, Object> retry = (Map<String, Object>) method.get("retryPolicy");
    assertThat(retry)
        .containsEntry("maxAttempts", 5.0)
        .containsEntry("initialBackoff", "0.25s")
        .containsEntry("maxBackoff", "1.5s");
    assertThat(config).doesNotContainKey("retryThrottling");

    TokenBucketRetryBudget small = TokenBucketRetryBudget.builder().capacity(7).build();
    Map<String, Object> throttled =
        GrpcRetryServiceConfig.forServices(policy.toBuilder().budget(small).build(), "a.A");
    assertThat(throttled.get("retryThrottling"))
        .isEqualTo(Map.of("maxTokens", 1.0, "tokenRatio", 0.071));
  }

  @Test
  void refusesAConfigForNoService() {
    assertThatThrownBy(() -> GrpcRetryServiceConfig.forServices(RetryPolicy.ofDefaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one service");
  }
}
