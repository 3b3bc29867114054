package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@link DynamoDbKeyStore#checkLease}: a call of the store, the SDK's retries included, must end
 * within the engine's lease safety margin. Without a server: the client is a stand-in that answers
 * nothing, as neither building the store nor the check sends a request.
 */
class DynamoDbLeaseCheckTest {
  @Test
  void theDefaultsOfTheStoreAndTheEngineAgree() {
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(client()).build()) {
      // the engine's defaults: a 30 s lease, renewed every 10 s, a 5 s margin
      assertThatCode(() -> store.checkLease(Duration.ofSeconds(30), Duration.ofSeconds(5)))
          .doesNotThrowAnyException();
    }
  }

  @Test
  void aCallTimeoutLongerThanTheEnginesSafetyMarginIsRefusedNamingBothSettings() {
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(client()).build()) {
      // a 10 s lease renewed every 3.3 s: told 1.67 s before its end, while the SDK may retry 5 s
      assertThatThrownBy(() -> store.checkLease(Duration.ofSeconds(10), Duration.ofMillis(1_666)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("callTimeout (PT5S")
          .hasMessageContaining("attemptTimeout PT2S")
          .hasMessageContaining("leaseSafetyMargin (PT1.666S of its lease PT10S)")
          .hasMessageContaining("callTimeout to at most PT1.666S");
    }
  }

  @Test
  void aCallTimeoutWithinTheMarginPassesWhateverTheAttemptTimeout() {
    // every attempt ends with the call: callTimeout alone bounds it
    try (DynamoDbKeyStore store =
        DynamoDbKeyStore.builder(client())
            .callTimeout(Duration.ofMillis(1_500))
            .attemptTimeout(Duration.ofSeconds(2))
            .build()) {
      assertThatCode(() -> store.checkLease(Duration.ofSeconds(10), Duration.ofMillis(1_666)))
          .doesNotThrowAnyException();
    }
  }

  private static DynamoDbClient client() {
    return (DynamoDbClient)
        Proxy.newProxyInstance(
            DynamoDbLeaseCheckTest.class.getClassLoader(),
            new Class<?>[] {DynamoDbClient.class},
            (proxy, method, args) -> {
              throw new AssertionError("no request expected: " + method.getName());
            });
  }
}
