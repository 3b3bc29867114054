package dev.idempotency.examples.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The demo's claim, run as the demo runs it: over Netty through the proxy that loses answers, with
 * gRPC's own retries, no payment is charged twice with the interceptors on, and the same traffic
 * charges payments twice with the server interceptor off (so the first test's zero is the
 * interceptor's doing, not a network that lost nothing).
 */
class GrpcPaymentsDemoTest {
  private static final GrpcDemoOptions OPTIONS = new GrpcDemoOptions(60, 4, 30, 7, false);

  @Test
  void withTheInterceptorsEveryPaymentIsChargedOnceThoughAnswersWereLost() throws Exception {
    GrpcPaymentsDemo.Run on = GrpcPaymentsDemo.run(OPTIONS, true);

    assertThat(on.lost()).as("answers the proxy lost (seed 7)").isGreaterThanOrEqualTo(5);
    assertThat(on.replays())
        .as("lost answers replayed to gRPC's retries")
        .isGreaterThanOrEqualTo(1);
    assertThat(on.duplicateCharges()).as("duplicate charges, library on").isZero();
    // the second pass ends every payment the first did not: each is charged one time, no more
    assertThat(on.endedOk() + on.resentOk()).isEqualTo(OPTIONS.payments());
    assertThat(on.charges()).isEqualTo(OPTIONS.payments());
    assertThat(GrpcPaymentsDemo.report(OPTIONS, List.of(on)))
        .contains("duplicate charges")
        .contains("answers lost in transit");
  }

  @Test
  void withoutTheServerInterceptorTheSameTrafficChargesPaymentsTwice() throws Exception {
    GrpcPaymentsDemo.Run off = GrpcPaymentsDemo.run(OPTIONS, false);

    assertThat(off.lost()).isGreaterThanOrEqualTo(5);
    assertThat(off.replays()).isZero();
    assertThat(off.duplicateCharges())
        .as("each lost answer's retry charges again when nothing stands in front of the service")
        .isGreaterThanOrEqualTo(5);
  }

  @Test
  void aBadCommandLineIsRefusedWithTheFlagNamed() {
    assertThatThrownBy(() -> GrpcDemoOptions.parse(List.of("--loss", "95")))
        .isInstanceOf(GrpcDemoOptions.UsageException.class)
        .hasMessage("--loss must be from 0 to 90, not 95");
    assertThatThrownBy(() -> GrpcDemoOptions.parse(List.of("--payments", "many")))
        .hasMessage("--payments takes a whole number, not 'many'");
    assertThatThrownBy(() -> GrpcDemoOptions.parse(List.of("--fast")))
        .hasMessage("unknown argument '--fast'");
  }
}
