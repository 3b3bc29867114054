/**
 * The public contract of the idempotency library: value types, the three-state machine, the {@code
 * KeyStore} SPI and the event types. This module has no dependencies; implementations live in other
 * modules.
 */
module dev.idempotency.api {
  requires static org.jspecify;

  exports dev.idempotency;
  exports dev.idempotency.spi;
  exports dev.idempotency.event;
}
