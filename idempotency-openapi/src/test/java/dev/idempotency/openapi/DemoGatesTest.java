package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.examples.DemoPaymentsServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gates against the demo's payments API, started in this JVM, with the demo's own document and
 * no state probe (the demo has no GET): side effects are counted from the answers, and the card
 * network's count, read here, confirms them. With the filter every gate it can run passes (its
 * 24-hour window is not waited for); without it the replay and the concurrent duplicates fail.
 */
class DemoGatesTest {
  @TempDir Path dir;

  /** The payment as the demo takes it, and a slow one: the card network takes a second. */
  private CrossFileAndUnreadableTest.Run gates(DemoPaymentsServer demo) throws IOException {
    Path requests =
        Files.writeString(
            dir.resolve("requests.json"),
            """
            {"headers": {"Authorization": "Bearer merchant-1"},
             "requests": [{"operation": "createPayment", "path": "/payments",
                           "body": {"paymentId": "pay-gates", "amountCents": 4200},
                           "slowBody": {"paymentId": "pay-gates", "amountCents": 4200,
                                        "delayMillis": 1000}}]}
            """);
    return cli(
        "gates",
        Specs.demo().toString(),
        "--base-url",
        demo.uri().toString(),
        "--requests",
        requests.toString(),
        "--timeout",
        "20s");
  }

  @Test
  void withTheFilterEveryGateItCanRunPasses() throws Exception {
    try (DemoPaymentsServer demo = DemoPaymentsServer.start(true, "openapi_gates_on")) {
      CrossFileAndUnreadableTest.Run run = gates(demo);

      assertThat(run.out())
          .as(run.out() + run.err())
          .containsPattern("PASS\\s+replay\\s+the retry got the first answer, byte for byte")
          .containsPattern("PASS\\s+mismatch\\s+another body with the same key was refused: 409")
          .containsPattern("PASS\\s+concurrent\\s+16 requests with one key at once")
          .containsPattern("PASS\\s+in_flight\\s+one ran \\(201")
          .containsPattern("PASS\\s+key_syntax\\s+refused")
          .containsPattern("NOT_TESTED\\s+window\\s+no --window")
          .contains("runs counted from the answers (no state probe)");
      assertThat(run.status()).isEqualTo(OpenApiCli.OK);
      // the card network confirms what the answers showed: one charge per key (replay,
      // concurrent, in flight), none for the other body or the refused keys
      assertThat(demo.charges()).isEqualTo(3);
    }
  }

  @Test
  void withoutTheFilterTheReplayAndTheConcurrentDuplicatesFail() throws Exception {
    try (DemoPaymentsServer demo = DemoPaymentsServer.start(false, "openapi_gates_off")) {
      CrossFileAndUnreadableTest.Run run = gates(demo);

      assertThat(run.out())
          .as(run.out())
          .containsPattern("FAIL\\s+replay\\s+the retry ran again")
          .contains("reveals anti-pattern 1: a key accepted but never stored or honoured")
          .containsPattern("FAIL\\s+concurrent\\s+16 requests with one key at once: 16 × 201")
          .contains("reveals anti-pattern 3: check-then-insert claiming (a TOCTOU race)");
      assertThat(run.status()).isEqualTo(OpenApiCli.FAILING);
      assertThat(demo.charges()).isGreaterThan(3);
    }
  }
}
