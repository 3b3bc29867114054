package dev.idempotency.client.functional;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;

/** The end-to-end scenarios with {@link InMemoryKeyStore} behind the filter. */
class InMemoryFilterEndToEndTest extends FilterEndToEndContract {
  @Override
  protected KeyStore newStore() {
    return new InMemoryKeyStore();
  }
}
