package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.StoredResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransferAllowanceTest {
  private static int seconds(int bodyBytes, int queryTimeoutSeconds) {
    ParamValues p =
        new ParamValues(false, 0).response(StoredResponse.of(200, Map.of(), new byte[bodyBytes]));
    return TransferAllowance.seconds(p, queryTimeoutSeconds);
  }

  @Test
  void noResponseNoAllowance() {
    assertThat(TransferAllowance.seconds(new ParamValues(false, 0), 5)).isZero();
  }

  @Test
  void aSecondForEachMiBBegun() {
    assertThat(seconds(1, 5)).as("a response of one byte").isEqualTo(1);
    assertThat(seconds((1 << 20) - 64, 5)).isEqualTo(1);
    assertThat(seconds(8 << 20, 5)).as("8 MiB and its headers").isEqualTo(9);
  }

  @Test
  void stopsAtThreeTimesTheQueryTimeout() {
    assertThat(seconds(64 << 20, 5)).isEqualTo(15);
    assertThat(seconds(64 << 20, 1)).isEqualTo(3);
  }

  @Test
  void theTimeoutIsTheStoresPlusTheAllowanceAndNeverOverflows() {
    ParamValues small =
        new ParamValues(false, 0).response(StoredResponse.of(200, Map.of(), new byte[1]));
    assertThat(TransferAllowance.timeout(small, 5)).isEqualTo(6);
    assertThat(TransferAllowance.timeout(new ParamValues(false, 0), 5)).isEqualTo(5);
    assertThat(TransferAllowance.timeout(small, Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
  }
}
