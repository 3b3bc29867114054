/**
 * The public contract of the idempotency library: value types, the three-state machine, the {@code
 * KeyStore} SPI and the event types. This module has no dependencies; implementations live in other
 * modules.
 */
// "module": the qualified export names modules this module's build does not see
@SuppressWarnings("module")
module dev.idempotency.api {
  requires static org.jspecify;

  exports dev.idempotency;
  exports dev.idempotency.spi;
  exports dev.idempotency.event;
  // the transition table, which the in-memory store and the TCK's model move records by; no
  // application needs it
  exports dev.idempotency.internal to
      dev.idempotency.core,
      dev.idempotency.tck;
}
