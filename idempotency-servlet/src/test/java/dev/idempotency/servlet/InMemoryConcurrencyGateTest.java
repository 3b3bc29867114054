package dev.idempotency.servlet;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;

/** The concurrency gate over Jetty with {@link InMemoryKeyStore}. */
class InMemoryConcurrencyGateTest extends ConcurrencyGateContract {
  @Override
  protected KeyStore newStore() {
    return new InMemoryKeyStore();
  }
}
