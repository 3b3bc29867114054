package dev.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.idempotency.spi.TransactionCallbacks;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TransactionCallbacksTest {

  @Test
  void applicationCodeSeesNoStoreCallbacksOnExecution() {
    assertThat(Arrays.stream(Execution.class.getMethods()).map(Method::getName))
        .as(
            "the store callbacks belong to TransactionCallbacks (SPI), not to the Execution applications see")
        .doesNotContain("phaseOpening", "phaseClosed", "phaseCommitted", "completionCommitted");
  }

  @Test
  void anExecutionThatDoesNotForwardTheCallbacksIsRefusedByName() {
    Execution foreign =
        (Execution)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Execution.class},
                (proxy, method, args) -> {
                  throw new AssertionError("not called");
                });
    assertThatIllegalArgumentException()
        .isThrownBy(() -> TransactionCallbacks.of(foreign))
        .withMessageContaining(TransactionCallbacks.class.getName())
        .withMessageContaining("wrapping Execution forward");
    assertThatNullPointerException().isThrownBy(() -> TransactionCallbacks.of(null));
  }
}
