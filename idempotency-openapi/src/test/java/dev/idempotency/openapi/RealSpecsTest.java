package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit on four large public documents (src/test/resources/real-specs/README.md says where each
 * comes from): each reads without a parser message, and its verdict counts are these. The counts
 * were taken from the tool's first run and checked against the documents with a separate script
 * (operations per method, and the parameters named Idempotency-Key).
 */
class RealSpecsTest {
  @TempDir Path dir;

  private Path unpack(String name) throws IOException {
    return RealSpecs.unpack(dir, name);
  }

  private static Map<Verdict, Integer> counts(int safe, int keyed, int byMethod, int noKey) {
    return Map.of(
        Verdict.SAFE_METHOD, safe,
        Verdict.ACCEPTS_KEY, keyed,
        Verdict.ACCEPTS_KEY_IN_BODY, 0,
        Verdict.CONFIRMED_SAFE, 0,
        Verdict.VERIFIED_IDEMPOTENT, 0,
        Verdict.DOCUMENTED_RETRY_UNSAFE, 0,
        Verdict.IDEMPOTENT_BY_METHOD, byMethod,
        Verdict.LIKELY_READ_ONLY, 0,
        Verdict.NO_KEY, noKey);
  }

  @Test
  void stripeDeclaresNoKeyPerOperationButTakesItOnEveryPostByConvention() throws IOException {
    Path stripe = unpack("stripe.com.json.gz");

    AuditReport plain = OpenApiAudit.builder().build().audit(stripe);
    assertThat(plain.operations()).hasSize(452);
    assertThat(plain.verdictCounts()).isEqualTo(counts(213, 0, 30, 209));
    assertThat(plain.failing()).hasSize(209);

    AuditReport convention = OpenApiAudit.builder().keyConvention("POST").build().audit(stripe);
    assertThat(convention.verdictCounts()).isEqualTo(counts(213, 209, 30, 0));
    assertThat(convention.failing()).isEmpty();
  }

  @Test
  void twilioDeclaresNoKeyHeaderButTakesAKeyInTheFormBodyOfFourCalls() throws IOException {
    AuditReport report = OpenApiAudit.builder().build().audit(unpack("twilio.com-api.json.gz"));

    Map<Verdict, Integer> expected = new java.util.EnumMap<>(counts(103, 0, 32, 56));
    expected.put(Verdict.ACCEPTS_KEY_IN_BODY, 4);
    assertThat(report.verdictCounts()).isEqualTo(expected);
    // the payments of a call: IdempotencyKey, a required form field
    assertThat(report.operations())
        .filteredOn(o -> o.verdict() == Verdict.ACCEPTS_KEY_IN_BODY)
        .extracting(o -> o.key().name())
        .containsOnly("IdempotencyKey");
  }

  @Test
  void adyenCheckoutIsOpenApi31AndKeyedButForOnePatch() throws IOException {
    AuditReport report =
        OpenApiAudit.builder().build().audit(unpack("adyen.com-CheckoutService-v71.json.gz"));

    assertThat(report.verdictCounts()).isEqualTo(counts(3, 20, 1, 1));
    assertThat(report.failing())
        .extracting(OperationReport::name)
        .containsExactly("PATCH /paymentLinks/{linkId}");
  }

  @Test
  void svixKeysEveryPostAndDocumentsItsConflictsButNoRetryAfter() throws IOException {
    AuditReport report = OpenApiAudit.builder().build().audit(unpack("svix.com.json.gz"));

    assertThat(report.verdictCounts()).isEqualTo(counts(25, 28, 0, 0));
    assertThat(report.outcomeCounts()).containsEntry(Outcome.FAILING, 0);
    assertThat(report.operations())
        .filteredOn(o -> o.outcome() == Outcome.WARNING)
        .allSatisfy(
            o -> assertThat(o.findings()).extracting(Finding::code).contains("no_retry_after"));
  }

  @Test
  void theCommandLineExitsOneOnTwilioAndRefusesItsEmptyRouteTable() throws IOException {
    Path twilio = unpack("twilio.com-api.json.gz");

    assertThat(CrossFileAndUnreadableTest.cli("check", twilio.toString()).status())
        .isEqualTo(OpenApiCli.FAILING);
    CrossFileAndUnreadableTest.Run routes =
        CrossFileAndUnreadableTest.cli("routes", twilio.toString());
    assertThat(routes.status()).isEqualTo(OpenApiCli.FAILING);
    assertThat(routes.err()).contains("no operation declares the key header");
  }
}
