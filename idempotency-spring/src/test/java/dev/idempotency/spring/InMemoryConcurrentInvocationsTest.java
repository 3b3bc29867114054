package dev.idempotency.spring;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;

/** The concurrent deliveries on the in-memory store. */
class InMemoryConcurrentInvocationsTest extends ConcurrentInvocationsContract {
  @Override
  KeyStore store() {
    return new InMemoryKeyStore();
  }
}
