package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PaymentsDemoTest {

  /**
   * The demo's claim, end to end: through dropped responses, resets and bursts, the library-on run
   * charges every payment once and only once, while the same traffic with a fresh key per attempt
   * charges some twice.
   */
  @Test
  void withTheLibraryNoPaymentIsChargedTwiceAndWithoutItSomeAre() throws Exception {
    DemoOptions options =
        DemoOptions.parse(
            "--clients",
            "4",
            "--payments",
            "6",
            "--drop-rate",
            "0.4",
            "--slow-rate",
            "0.1",
            "--reset-rate",
            "0.1",
            "--burst-rate",
            "0",
            "--compare",
            "--seed",
            "7");

    String report = PaymentsDemo.run(options);

    // a payment may still fail when all six attempts meet a fault; what never happens is a second
    // charge
    assertThat(report).containsPattern("DUPLICATE CHARGES\\s+0\\s+[1-9]\\d*\\n");
    assertThat(report).containsPattern("payments requested\\s+24\\s+24\\n");
    assertThat(report).containsPattern("replays \\(Idempotent-Replayed\\)\\s+[1-9]");
    // the closing sentences say the same as the table
    assertThat(report)
        .contains("every retry carried its payment's key, and 0 duplicate charges followed")
        .containsPattern("Without the library the same faults charged [1-9]\\d* payments twice")
        .contains("latency tail is longer on purpose");
  }

  @Test
  void badFlagsGetAUsageMessageNamingTheFlag() {
    assertThatThrownBy(() -> DemoOptions.parse("--clients", "0"))
        .hasMessage("--clients must be between 1 and 500, but was 0");
    assertThatThrownBy(() -> DemoOptions.parse("--drop-rate", "lots"))
        .hasMessageContaining("--drop-rate must be a number between 0 and 1");
    assertThatThrownBy(() -> DemoOptions.parse("--drop-rate", "0.6", "--reset-rate", "0.6"))
        .hasMessageContaining("must add up to at most 1");
    assertThatThrownBy(() -> DemoOptions.parse("--jdbc-url", "postgres://x"))
        .hasMessageContaining("JDBC URL");
    assertThatThrownBy(() -> DemoOptions.parse("--frobnicate"))
        .hasMessage("unknown argument '--frobnicate'");
    assertThatThrownBy(() -> DemoOptions.parse("--clients")).hasMessage("--clients needs a value");
    assertThatThrownBy(() -> DemoOptions.parse("--store", "redis"))
        .hasMessage("--store must be jdbc or dynamodb, but was 'redis'");
    assertThatThrownBy(() -> DemoOptions.parse("--dynamodb-endpoint", "http://127.0.0.1:1"))
        .hasMessageContaining("needs --store dynamodb");
    assertThatThrownBy(
            () -> DemoOptions.parse("--store", "dynamodb", "--jdbc-url", "jdbc:h2:mem:x"))
        .hasMessageContaining("--jdbc-url is for --store jdbc");
  }
}
