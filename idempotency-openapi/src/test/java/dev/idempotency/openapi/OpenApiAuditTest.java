package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every verdict and finding, on one document written in OpenAPI 3.0 and again in 3.1: each
 * operation's verdict, its outcome and its finding codes are asserted one by one.
 */
class OpenApiAuditTest {
  private static Map<String, OperationReport> byName(AuditReport report) {
    return report.operations().stream().collect(Collectors.toMap(OperationReport::name, o -> o));
  }

  private static List<String> codes(OperationReport o) {
    return o.findings().stream().map(Finding::code).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"verdicts-3.0.yaml", "verdicts-3.1.yaml"})
  void everyOperationGetsItsVerdictAndFindings(String document) {
    AuditReport report = OpenApiAudit.builder().build().audit(Specs.spec(document));
    Map<String, OperationReport> ops = byName(report);

    // 3.1's webhooks are requests the API sends, not endpoints: not judged
    assertThat(ops).hasSize(14);
    assertThat(ops.get("GET /orders").verdict()).isEqualTo(Verdict.SAFE_METHOD);
    assertThat(ops.get("HEAD /orders/{id}/tags").verdict()).isEqualTo(Verdict.SAFE_METHOD);
    assertThat(ops.get("OPTIONS /search").verdict()).isEqualTo(Verdict.SAFE_METHOD);
    assertThat(ops.get("TRACE /search").verdict()).isEqualTo(Verdict.SAFE_METHOD);

    // a $ref'd key parameter, 255 and a printable-ASCII pattern, 409 and a 429 with Retry-After
    OperationReport create = ops.get("POST /orders");
    assertThat(create.verdict()).isEqualTo(Verdict.ACCEPTS_KEY);
    assertThat(create.outcome()).isEqualTo(Outcome.OK);
    assertThat(create.findings()).isEmpty();
    assertThat(create.key())
        .extracting(
            KeyDeclaration::location,
            KeyDeclaration::name,
            KeyDeclaration::required,
            KeyDeclaration::source,
            KeyDeclaration::maxLength,
            KeyDeclaration::pattern)
        .containsExactly(
            KeyDeclaration.Location.HEADER,
            "Idempotency-Key",
            true,
            KeyDeclaration.Source.DOCUMENT,
            255,
            "^[\\x21-\\x7E]+$");
    assertThat(create.key().conflictAnswers()).containsOnlyKeys("409");
    assertThat(create.operationId()).isEqualTo("createOrder");

    OperationReport put = ops.get("PUT /orders/{id}");
    assertThat(put.verdict()).isEqualTo(Verdict.IDEMPOTENT_BY_METHOD);
    assertThat(put.outcome()).isEqualTo(Outcome.WARNING);
    assertThat(put.reason()).contains("run verify");

    assertThat(ops.get("DELETE /orders/{id}").verdict()).isEqualTo(Verdict.VERIFIED_IDEMPOTENT);
    assertThat(ops.get("DELETE /orders/{id}").outcome()).isEqualTo(Outcome.OK);
    assertThat(ops.get("POST /search").verdict()).isEqualTo(Verdict.VERIFIED_IDEMPOTENT);

    OperationReport patch = ops.get("PATCH /orders/{id}");
    assertThat(patch.verdict()).isEqualTo(Verdict.NO_KEY);
    assertThat(patch.outcome()).isEqualTo(Outcome.FAILING);

    // the header name matched ignoring case; maxLength 300; no 409/422; a 503 without Retry-After
    OperationReport refund = ops.get("POST /orders/{id}/refunds");
    assertThat(refund.verdict()).isEqualTo(Verdict.ACCEPTS_KEY);
    assertThat(refund.key())
        .extracting(
            KeyDeclaration::name,
            KeyDeclaration::required,
            KeyDeclaration::maxLength,
            KeyDeclaration::pattern)
        .containsExactly("idempotency-key", false, 300, null);
    assertThat(codes(refund))
        .containsExactlyInAnyOrder(
            "key_max_length_over_255", "no_conflict_response", "no_retry_after");
    assertThat(refund.outcome()).isEqualTo(Outcome.FAILING);

    OperationReport note = ops.get("POST /orders/{id}/notes");
    assertThat(note.verdict()).isEqualTo(Verdict.DOCUMENTED_RETRY_UNSAFE);
    assertThat(note.reason()).contains("each call appends a note");
    assertThat(note.outcome()).isEqualTo(Outcome.OK);

    // x-retry-unsafe without a reason counts for nothing
    OperationReport email = ops.get("POST /orders/{id}/emails");
    assertThat(email.verdict()).isEqualTo(Verdict.NO_KEY);
    assertThat(codes(email)).containsExactly("retry_unsafe_without_reason");

    // an unanchored pattern admits a key with a space; 422 counts as the conflict response
    OperationReport tag = ops.get("POST /orders/{id}/tags");
    assertThat(codes(tag)).containsExactly("key_pattern_admits_refused_keys");
    assertThat(tag.outcome()).isEqualTo(Outcome.FAILING);

    OperationReport label = ops.get("POST /orders/{id}/labels");
    assertThat(codes(label)).containsExactly("key_pattern_refuses_uuid");
    assertThat(label.outcome()).isEqualTo(Outcome.WARNING);

    assertThat(report.failing())
        .extracting(OperationReport::name)
        .containsExactlyInAnyOrder(
            "PATCH /orders/{id}",
            "POST /orders/{id}/refunds",
            "POST /orders/{id}/emails",
            "POST /orders/{id}/tags");
    assertThat(report.verdictCounts())
        .containsEntry(Verdict.SAFE_METHOD, 4)
        .containsEntry(Verdict.ACCEPTS_KEY, 4)
        .containsEntry(Verdict.VERIFIED_IDEMPOTENT, 2)
        .containsEntry(Verdict.DOCUMENTED_RETRY_UNSAFE, 1)
        .containsEntry(Verdict.IDEMPOTENT_BY_METHOD, 1)
        .containsEntry(Verdict.NO_KEY, 2);
  }

  @Test
  void aConventionGivesUndeclaredMethodsTheKey() {
    AuditReport report =
        OpenApiAudit.builder()
            .keyConvention("patch")
            .build()
            .audit(Specs.spec("verdicts-3.0.yaml"));
    OperationReport patch = byName(report).get("PATCH /orders/{id}");

    assertThat(patch.verdict()).isEqualTo(Verdict.ACCEPTS_KEY);
    assertThat(patch.key())
        .isEqualTo(
            KeyDeclaration.of(
                KeyDeclaration.Location.HEADER,
                "Idempotency-Key",
                true,
                KeyDeclaration.Source.CONVENTION));
    assertThat(patch.key().byConvention()).isTrue();
    // a conventional key still owes its integrators the conflict answers
    assertThat(codes(patch)).containsExactly("no_conflict_response");
    // a POST documented as retry-unsafe is not overridden by a convention for another method
    assertThat(byName(report).get("POST /orders/{id}/notes").verdict())
        .isEqualTo(Verdict.DOCUMENTED_RETRY_UNSAFE);
  }

  @Test
  void anotherHeaderNameFindsNoKeyWhereIdempotencyKeyIsDeclared() {
    AuditReport report =
        OpenApiAudit.builder()
            .headerName("X-Request-Id")
            .build()
            .audit(Specs.spec("verdicts-3.0.yaml"));

    assertThat(byName(report).get("POST /orders").verdict()).isEqualTo(Verdict.NO_KEY);
  }

  @Test
  void settingsAreValidated() {
    assertThatThrownBy(() -> OpenApiAudit.builder().keyConvention("GET"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GET is safe");
    assertThatThrownBy(() -> OpenApiAudit.builder().keyConvention("PO ST"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OpenApiAudit.builder().headerName("Idempotency Key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("headerName");
  }
}
