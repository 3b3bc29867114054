package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OperationKeyTest {
  @Test
  void theThreeDerivations() {
    assertThat(OperationKey.forEvent("order-confirm", "4711").value())
        .isEqualTo("order-confirm-4711");
    assertThat(OperationKey.forEvent("order-confirm", "4711").derivation())
        .isEqualTo(OperationKey.Derivation.EVENT);
    assertThat(OperationKey.forRequest("req-abc").derivation())
        .isEqualTo(OperationKey.Derivation.REQUEST);
    OperationKey random = OperationKey.random();
    assertThat(random.derivation()).isEqualTo(OperationKey.Derivation.RANDOM);
    assertThat(random.value())
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
    assertThat(OperationKey.random()).isNotEqualTo(random);
  }

  /**
   * Derivations of the same event give the same key: a restarted caller collapses into the earlier
   * request.
   */
  @Test
  void eventDerivedKeysAreStable() {
    assertThat(OperationKey.forEvent("order-confirm", "4711"))
        .isEqualTo(OperationKey.forEvent("order-confirm", "4711"));
  }

  @Test
  void keysFollowTheServersSyntax() {
    assertThatThrownBy(() -> OperationKey.of(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idempotency key must be 1 to 255 characters, but had 0");
    assertThatThrownBy(() -> OperationKey.of("x".repeat(256))).hasMessageContaining("but had 256");
    assertThatThrownBy(() -> OperationKey.of("has space"))
        .hasMessage("idempotency key must be printable ASCII (0x21-0x7E), but had 0x20 at index 3");
    assertThatThrownBy(() -> OperationKey.forEvent("order", ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(OperationKey.of("x".repeat(255)).value()).hasSize(255);
  }
}
