package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.examples.DemoPaymentsServer;
import org.junit.jupiter.api.Test;

/**
 * {@code verify} against the demo's payments API, started in this JVM from the examples module,
 * with the demo's own document: with the idempotency filter the keyed POST sent twice answers the
 * same and charges once; without it the second answer carries a second authorization.
 */
class DemoVerifyTest {
  private static CrossFileAndUnreadableTest.Run verify(DemoPaymentsServer demo) {
    return cli(
        "verify",
        Specs.demo().toString(),
        "--base-url",
        demo.uri().toString(),
        "--request-header",
        "Authorization: Bearer merchant-1");
  }

  @Test
  void thePaymentsApiPassesWithTheFilter() throws Exception {
    try (DemoPaymentsServer demo = DemoPaymentsServer.start(true, "openapi_verify_on")) {
      CrossFileAndUnreadableTest.Run run = verify(demo);

      assertThat(run.status()).as(run.out() + run.err()).isEqualTo(OpenApiCli.OK);
      assertThat(run.out()).contains("SAME     POST /payments").contains("answers 201");
      assertThat(demo.charges()).isEqualTo(1);
    }
  }

  @Test
  void withoutTheFilterTheSecondPaymentIsReportedByItsAuthorization() throws Exception {
    try (DemoPaymentsServer demo = DemoPaymentsServer.start(false, "openapi_verify_off")) {
      CrossFileAndUnreadableTest.Run run = verify(demo);

      assertThat(run.status()).isEqualTo(OpenApiCli.FAILING);
      assertThat(run.out())
          .contains("DIFFERS  POST /payments")
          .contains("answer $.authorization: ");
      assertThat(demo.charges()).isEqualTo(2);
    }
  }
}
