package dev.idempotency.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.RetryBudget;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.grpc.test.PaymentServiceGrpc;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy → service config mapping; GrpcOwnRetriesTest runs it in a real channel. */
class GrpcRetryServiceConfigTest {
  @Test
  void theDefaultPolicyKeepsItsBackoffCeilingsOverTheAllowlistWithOneDeadlineAndThrottling() {
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
  void theDescriptorFormNamesTheUnaryMethodsAndNoStreamingOne() {
    Map<String, Object> config =
        GrpcRetryServiceConfig.forServices(
            RetryPolicy.ofDefaults(), PaymentServiceGrpc.getServiceDescriptor());

    @SuppressWarnings("unchecked")
    Map<String, Object> method = ((List<Map<String, Object>>) config.get("methodConfig")).get(0);
    String service = "idempotency.test.PaymentService";
    assertThat(method.get("name"))
        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
        .containsExactlyInAnyOrder(
            Map.of("service", service, "method", "Charge"),
            Map.of("service", service, "method", "GetCharge"),
            Map.of("service", service, "method", "CaptureCharge"),
            Map.of("service", service, "method", "ChargeAndRecord"))
        .doesNotContain(Map.of("service", service, "method", "WatchCharges"));
    assertThat(method).containsKey("retryPolicy");
  }

  @Test
  void refusesAConfigForNoServiceOrNoUnaryMethod() {
    assertThatThrownBy(
            () -> GrpcRetryServiceConfig.forServices(RetryPolicy.ofDefaults(), new String[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one service");
    assertThatThrownBy(
            () ->
                GrpcRetryServiceConfig.forServices(
                    RetryPolicy.ofDefaults(), new ServiceDescriptor[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one service");
    ServiceDescriptor streamingOnly =
        ServiceDescriptor.newBuilder("idempotency.test.PaymentService")
            .addMethod(PaymentServiceGrpc.getWatchChargesMethod())
            .build();
    assertThatThrownBy(
            () -> GrpcRetryServiceConfig.forServices(RetryPolicy.ofDefaults(), streamingOnly))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no unary method");
  }

  @Test
  void aPolicyWithoutRetriesKeepsItsDeadlineButHasNoRetryPolicy() {
    RetryPolicy once = RetryPolicy.builder().maxAttempts(1).build();
    Map<String, Object> config = GrpcRetryServiceConfig.forServices(once, "a.A");

    @SuppressWarnings("unchecked")
    Map<String, Object> method = ((List<Map<String, Object>>) config.get("methodConfig")).get(0);
    assertThat(method).doesNotContainKey("retryPolicy");
    assertThat(method.get("timeout")).isEqualTo("30s");
    assertThatThrownBy(() -> GrpcRetryServiceConfig.retryPolicy(once))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one attempt");
  }
}
