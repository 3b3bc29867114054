package dev.idempotency.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProblemDetailsTest {
  @Test
  void readsCodeAndRetryableFromTheTopLevelObject() {
    ProblemDetails p =
        ProblemDetails.parse(
            "{\"type\":\"https://example/x\",\"title\":\"In flight\",\"status\":409,"
                + "\"detail\":\"a \\\"quoted\\\" word\",\"code\":\"idempotency_request_in_flight\",\"retryable\":true}");
    assertThat(p.code()).isEqualTo("idempotency_request_in_flight");
    assertThat(p.retryable()).isTrue();
  }

  /** Members of nested objects and arrays are not the problem's own. */
  @Test
  void ignoresNestedMembers() {
    ProblemDetails p =
        ProblemDetails.parse(
            "{\"errors\":[{\"code\":\"nested\",\"retryable\":true}],"
                + "\"meta\":{\"code\":\"also nested\"},\"n\":null,\"f\":-1.5e3,\"retryable\":false}");
    assertThat(p.code()).isNull();
    assertThat(p.retryable()).isFalse();
  }

  @Test
  void garbageYieldsNothing() {
    assertThat(ProblemDetails.parse("not json").code()).isNull();
    assertThat(ProblemDetails.parse("{\"code\":").code()).isNull();
    assertThat(ProblemDetails.parse("[]").retryable()).isNull();
    assertThat(ProblemDetails.parse(new byte[0]).code()).isNull();
  }
}
