package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.TestDatabases;
import org.junit.jupiter.api.Test;

/**
 * The demo with {@code --store dynamodb}, on the dynalite test server: no payment charged twice.
 */
class PaymentsDemoDynamoDbIT {
  @Test
  void onDynamoDbNoPaymentIsChargedTwice() throws Exception {
    String endpoint = TestDatabases.require("IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT").get(0);
    DemoOptions options =
        DemoOptions.parse(
            "--store",
            "dynamodb",
            "--dynamodb-endpoint",
            endpoint,
            "--clients",
            "4",
            "--payments",
            "5",
            "--drop-rate",
            "0.4",
            "--burst-rate",
            "0",
            "--seed",
            "7");

    String report = PaymentsDemo.run(options);

    assertThat(report).contains("store: DynamoDB (" + endpoint + ")");
    assertThat(report).containsPattern("DUPLICATE CHARGES\\s+0\\n");
    assertThat(report).containsPattern("payments requested\\s+20\\n");
    assertThat(report).containsPattern("replays \\(Idempotent-Replayed\\)\\s+[1-9]");
  }
}
